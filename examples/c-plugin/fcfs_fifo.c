/*
 * Two vodbench policies written in C against vodbench_plugin.h:
 *
 *   c-fcfs  a disk scheduler: first come, first served (the built-in `fcfs`);
 *   c-fifo  a buffer pool: evict the page held longest that is not in use (the built-in
 *           `fifo`).
 *
 * Build (one line, no vodbench source needed but the header):
 *
 *   cc -shared -fPIC -O2 -I plugin-api/include examples/c-plugin/fcfs_fifo.c -o libfcfs_fifo.so
 *
 * Use: vodbench run scenarios/zipf1.toml --plugin ./libfcfs_fifo.so, with
 * `[disk.scheduler] name = "c-fcfs"` or `[buffer_pool] name = "c-fifo"` in the scenario.
 *
 * Every call returns VB_OK or VB_ERROR; after VB_ERROR vodbench asks `last_error` and stops
 * the run naming this library, the policy and the call. State lives in the instance only, so
 * that runs on several threads never share it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vodbench_plugin.h"

/* ---- shared ------------------------------------------------------------------------- */

typedef struct {
    char error[256];
} Common;

static const char *last_error(void *state) {
    Common *c = (Common *)state;
    return c->error[0] ? c->error : NULL;
}

static int32_t fail(Common *c, const char *message) {
    snprintf(c->error, sizeof c->error, "%s", message);
    return VB_ERROR;
}

/* Neither policy takes a parameter: the schema refuses every key. */
static const char NO_PARAMS[] = "{\"type\": \"object\", \"additionalProperties\": false}";

/* ---- c-fcfs: a ring of request ids ---------------------------------------------------- */

typedef struct {
    Common common; /* first, so that last_error can read it */
    uint32_t *ids;
    size_t head, len, cap;
} Fcfs;

static void *fcfs_create(const char *params, const VbBuildContext *ctx, VbError *err) {
    (void)params;
    (void)ctx;
    Fcfs *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return NULL;
    }
    return f;
}

static void fcfs_destroy(void *state) {
    Fcfs *f = state;
    free(f->ids);
    free(f);
}

static int32_t fcfs_enqueue(void *state, const VbQueuedRequest *r) {
    Fcfs *f = state;
    if (f->len == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        uint32_t *ids = malloc(cap * sizeof *ids);
        if (!ids) return fail(&f->common, "out of memory");
        for (size_t i = 0; i < f->len; i++) {
            size_t j = f->head + i;
            ids[i] = f->ids[j < f->cap ? j : j - f->cap];
        }
        free(f->ids);
        f->ids = ids;
        f->cap = cap;
        f->head = 0;
    }
    size_t tail = f->head + f->len; /* no division: wrap by one subtraction */
    f->ids[tail < f->cap ? tail : tail - f->cap] = r->id;
    f->len++;
    return VB_OK;
}

static int32_t fcfs_dequeue(void *state, const VbHeadState *head, uint8_t *some, uint32_t *id) {
    (void)head;
    Fcfs *f = state;
    if (f->len == 0) {
        *some = 0;
        return VB_OK;
    }
    *some = 1;
    *id = f->ids[f->head];
    f->head = f->head + 1 == f->cap ? 0 : f->head + 1;
    f->len--;
    return VB_OK;
}

static int32_t fcfs_len(void *state, uint64_t *out) {
    *out = ((Fcfs *)state)->len;
    return VB_OK;
}

static const VbDiskSchedulerVtable FCFS = {
    .enqueue = fcfs_enqueue,
    .dequeue = fcfs_dequeue,
    .len = fcfs_len,
};

/* ---- c-fifo: pages in the order the pool first held them ---------------------------- */

#define NIL UINT32_MAX

typedef struct {
    Common common;
    uint32_t pages;
    uint8_t *held, *pinned;
    uint32_t *prev, *next;
    uint32_t head, tail;
} Fifo;

static void fifo_destroy(void *state) {
    Fifo *f = state;
    free(f->held);
    free(f->pinned);
    free(f->prev);
    free(f->next);
    free(f);
}

static void *fifo_create(const char *params, const VbBuildContext *ctx, VbError *err) {
    (void)params;
    Fifo *f = calloc(1, sizeof *f);
    uint32_t n = ctx->pages;
    if (f) {
        f->pages = n;
        f->head = f->tail = NIL;
        f->held = calloc(n ? n : 1, 1);
        f->pinned = calloc(n ? n : 1, 1);
        f->prev = malloc((n ? n : 1) * sizeof(uint32_t));
        f->next = malloc((n ? n : 1) * sizeof(uint32_t));
    }
    if (!f || !f->held || !f->pinned || !f->prev || !f->next) {
        if (f) fifo_destroy(f);
        snprintf(err->message, sizeof err->message, "out of memory for %u pages", n);
        return NULL;
    }
    return f;
}

static int32_t check_page(Fifo *f, uint32_t page) {
    if (page >= f->pages) {
        char m[96];
        snprintf(m, sizeof m, "page %u of a pool of %u pages", page, f->pages);
        return fail(&f->common, m);
    }
    return VB_OK;
}

static int32_t fifo_release(void *state, uint32_t page, uint8_t referenced) {
    (void)referenced;
    Fifo *f = state;
    if (check_page(f, page) != VB_OK) return VB_ERROR;
    f->pinned[page] = 0;
    if (f->held[page]) return VB_OK; /* keeps its place however often it is referenced */
    f->held[page] = 1;
    f->prev[page] = f->tail;
    f->next[page] = NIL;
    if (f->tail != NIL) f->next[f->tail] = page; else f->head = page;
    f->tail = page;
    return VB_OK;
}

static int32_t fifo_acquire(void *state, uint32_t page) {
    Fifo *f = state;
    if (check_page(f, page) != VB_OK) return VB_ERROR;
    f->pinned[page] = 1;
    return VB_OK;
}

static int32_t fifo_evict(void *state, uint8_t *some, uint32_t *page) {
    Fifo *f = state;
    uint32_t p = f->head;
    while (p != NIL && f->pinned[p]) p = f->next[p];
    if (p == NIL) {
        *some = 0;
        return VB_OK;
    }
    if (f->prev[p] != NIL) f->next[f->prev[p]] = f->next[p]; else f->head = f->next[p];
    if (f->next[p] != NIL) f->prev[f->next[p]] = f->prev[p]; else f->tail = f->prev[p];
    f->held[p] = 0;
    f->pinned[p] = 0;
    *some = 1;
    *page = p;
    return VB_OK;
}

static const VbBufferPoolVtable FIFO = {
    .release = fifo_release,
    .acquire = fifo_acquire,
    .evict = fifo_evict,
    /* NULL: a prefetch evicts as a demand read does; capacity and requests are ignored */
};

/* ---- the library ------------------------------------------------------------------- */

static const VbPolicy POLICIES[] = {
    {
        .kind = VB_KIND_DISK_SCHEDULER,
        .name = "c-fcfs",
        .description = "first come, first served (example C plugin)",
        .params_schema = NO_PARAMS,
        .check = NULL,
        .create = fcfs_create,
        .destroy = fcfs_destroy,
        .last_error = last_error,
        .vtable = &FCFS,
    },
    {
        .kind = VB_KIND_BUFFER_POOL,
        .name = "c-fifo",
        .description = "first in, first out page replacement (example C plugin)",
        .params_schema = NO_PARAMS,
        .check = NULL,
        .create = fifo_create,
        .destroy = fifo_destroy,
        .last_error = last_error,
        .vtable = &FIFO,
    },
};

static const VbLibrary LIBRARY = {
    .abi_version = VB_ABI_VERSION,
    .sizes = VB_SIZES,
    .policy_count = sizeof POLICIES / sizeof POLICIES[0],
    .policies = POLICIES,
};

const VbLibrary *vodbench_plugin_library(void) { return &LIBRARY; }
