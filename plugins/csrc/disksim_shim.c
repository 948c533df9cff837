/*
 * vodbench's shim over DiskSim 4.0's external interface (issue 3, item 5).
 *
 * Written for vodbench against DiskSim's public headers (`disksim_interface.h`,
 * `libddbg.h`); it contains no DiskSim code. Compiled only with the cargo feature `disksim`,
 * and linked with the DiskSim libraries found through DISKSIM_DIR (see plugins/build.rs).
 *
 * One `vb_disksim` drives one DiskSim instance as an event-driven slave: DiskSim asks for a
 * single pending callback time (`sched`/`desched`); the caller pumps
 * `disksim_interface_internal_event` at those times. The caller (Rust) holds a process-wide
 * lock around every call here: DiskSim keeps its state behind one global pointer
 * (`disksim`), which its interface functions point at the instance they are given.
 *
 * DiskSim's parser (libparam) crashes on a parameter name it does not know and exits on a
 * value of the wrong type, so the caller checks files against libparam's own parameter tables
 * first (`vb_lp_*`, filled once any instance has been loaded).
 *
 * DiskSim's own assertions (`ddbg_assert`) are redirected to a handler that jumps back here,
 * so that they become an error code instead of SIGABRT. After such a jump DiskSim's state is
 * unknown: the instance is marked failed and the caller must not use DiskSim again
 * (`vb_disksim_broken`).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disksim_interface.h"
#include <libparam/libparam.h>

/* libddbg's assertion hook (DiskSim 4.0 libddbg/libddbg.h). */
typedef void (*vb_ddbg_handler)(char *file, int line, const char *cond, const char *func,
                                const char *fmt, ...);
void ddbg_assert_sethandler(vb_ddbg_handler);

/* DiskSim's current-instance pointer (src/disksim.c); the interface functions set it, except
 * disksim_free_disksim, which uses whatever it points at. */
struct disksim;
extern struct disksim *disksim;

struct vb_disksim {
    struct disksim_interface *iface;
    struct disksim *ds; /* the instance's state, for disksim_free_disksim */
    int pending;        /* DiskSim asked to be called back at `pending_at` */
    double pending_at;
    int done;           /* the outstanding request completed at `completed_at` */
    double completed_at;
    struct disksim_request req;
};

static jmp_buf *vb_jump;    /* where an assertion inside DiskSim returns to */
static char vb_assert_msg[512];
static int vb_broken;       /* an assertion fired: DiskSim's state is unknown */

static void vb_assert_handler(char *file, int line, const char *cond, const char *func,
                              const char *fmt, ...) {
    (void)fmt;
    snprintf(vb_assert_msg, sizeof vb_assert_msg,
             "DiskSim assertion failed in %s() (%s:%d): %s", func ? func : "?",
             file ? file : "?", line, cond ? cond : "?");
    vb_broken = 1;
    if (vb_jump) {
        longjmp(*vb_jump, 1);
    }
    abort(); /* not reached: every call into DiskSim sets vb_jump */
}

static void vb_sched(disksim_interface_callback_t fn, double t, void *ctx) {
    struct vb_disksim *h = ctx;
    (void)fn; /* always disksim_interface_internal_event */
    h->pending = 1;
    h->pending_at = t;
}

static void vb_desched(double t, void *ctx) {
    struct vb_disksim *h = ctx;
    (void)t;
    h->pending = 0;
}

static void vb_complete(double t, struct disksim_request *r, void *ctx) {
    struct vb_disksim *h = ctx;
    (void)r;
    h->done = 1;
    h->completed_at = t;
}

static void vb_copy(char *dst, size_t len, const char *src) {
    if (len == 0) {
        return;
    }
    snprintf(dst, len, "%s", src);
}

/* 1 once a DiskSim assertion has fired in this process. */
int vb_disksim_broken(void) { return vb_broken; }

/*
 * Loads `parv` (DiskSim resolves `source` includes and the statdefs file relative to it) and
 * writes DiskSim's output to `outv`. Returns 0 and sets *out, or -1 with a message in `err`.
 */
int vb_disksim_open(const char *parv, const char *outv, struct vb_disksim **out, char *err,
                    size_t errlen) {
    jmp_buf here;
    struct vb_disksim *h;
    *out = NULL;
    if (vb_broken) {
        vb_copy(err, errlen, vb_assert_msg);
        return -1;
    }
    h = calloc(1, sizeof *h);
    if (!h) {
        vb_copy(err, errlen, "out of memory");
        return -1;
    }
    ddbg_assert_sethandler(vb_assert_handler);
    vb_jump = &here;
    if (setjmp(here)) {
        vb_jump = NULL;
        vb_copy(err, errlen, vb_assert_msg);
        return -1; /* h is leaked on purpose: DiskSim may still point into it */
    }
    h->iface = disksim_interface_initialize(parv, outv, vb_complete, vb_sched, vb_desched, h,
                                            0, NULL);
    h->ds = disksim;
    vb_jump = NULL;
    if (!h->iface) {
        free(h);
        vb_copy(err, errlen, "disksim_interface_initialize returned no instance");
        return -1;
    }
    *out = h;
    return 0;
}

/* Runs the pending internal event, if it is due strictly before `before_ms`. 1 if one ran. */
static int vb_pump_before(struct vb_disksim *h, double before_ms) {
    if (h->pending && h->pending_at < before_ms) {
        double t = h->pending_at;
        h->pending = 0;
        disksim_interface_internal_event(h->iface, t, NULL);
        return 1;
    }
    return 0;
}

/*
 * Serves one request arriving at `now_ms`: first DiskSim's events due strictly before
 * `now_ms`, then the arrival, then events until the completion callback. `write` is 0 for a
 * read. Returns 0 with the completion time in *completed_ms, -1 with a message in `err`.
 */
int vb_disksim_serve(struct vb_disksim *h, double now_ms, int devno, unsigned long blkno,
                     int bytes, int write, double *completed_ms, char *err, size_t errlen) {
    jmp_buf here;
    if (vb_broken) {
        vb_copy(err, errlen, vb_assert_msg);
        return -1;
    }
    vb_jump = &here;
    if (setjmp(here)) {
        vb_jump = NULL;
        vb_copy(err, errlen, vb_assert_msg);
        return -1;
    }
    while (vb_pump_before(h, now_ms)) {
    }
    memset(&h->req, 0, sizeof h->req);
    h->req.flags = write ? DISKSIM_WRITE : DISKSIM_READ;
    h->req.devno = (short)devno;
    h->req.blkno = blkno;
    h->req.bytecount = bytes;
    h->req.start = now_ms;
    h->done = 0;
    disksim_interface_request_arrive(h->iface, now_ms, &h->req);
    while (!h->done) {
        double t;
        if (!h->pending) {
            vb_jump = NULL;
            vb_copy(err, errlen,
                    "DiskSim has no pending event but the request has not completed");
            return -1;
        }
        t = h->pending_at;
        h->pending = 0;
        disksim_interface_internal_event(h->iface, t, NULL);
    }
    vb_jump = NULL;
    *completed_ms = h->completed_at;
    return 0;
}

/* Frees the instance (closes its output file). Safe after an error. */
void vb_disksim_close(struct vb_disksim *h) {
    jmp_buf here;
    if (!h) {
        return;
    }
    if (vb_broken) {
        return; /* DiskSim's state is unknown: leak rather than touch it */
    }
    vb_jump = &here;
    if (setjmp(here)) {
        vb_jump = NULL;
        return;
    }
    disksim = h->ds;
    disksim_free_disksim(h->iface);
    vb_jump = NULL;
    free(h);
}

/*
 * libparam's parameter tables (registered by DiskSim's loader; empty before the first
 * successful vb_disksim_open). Module indices come from vb_lp_module or from a parameter's
 * type (a type >= 0 is a block of that module).
 */

/* The index of module `name`, or -1. */
int vb_lp_module(const char *name) { return lp_mod_name((char *)name); }

/* The name of module `m` (an index returned by vb_lp_module or a parameter type >= 0). */
const char *vb_lp_module_name(int m) { return lp_modules[m]->name; }

/* The number of parameters of module `m`. */
int vb_lp_nparams(int m) { return lp_modules[m]->modvars_len; }

/* Parameter `i` of module `m`: its name; its type and whether it is required. */
const char *vb_lp_param(int m, int i, int *type, int *req) {
    *type = lp_modules[m]->modvars[i].type;
    *req = lp_modules[m]->modvars[i].req;
    return lp_modules[m]->modvars[i].name;
}
