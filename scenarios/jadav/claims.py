#!/usr/bin/env python3
"""Judges Jadav et al.'s claims J1-J3 (Figs. 4-6) on runs of fig4-5-6-fragment-size.toml.

    for s in 1 2 3 4 5; do
      vodbench run scenarios/jadav/fig4-5-6-fragment-size.toml --seed $s --out out/j$s
    done
    python3 scenarios/jadav/claims.py out/j1 out/j2 out/j3 out/j4 out/j5

Reads each folder's summary.json (the points' `request_delays`), takes the median over the
folders of every figure, and prints each claim with the figures it rests on and whether it
holds, by the pass criteria of ../shared/papers/notes/jadav.md §6. Only the standard library.
"""
import json
import statistics
import sys

PARTS = ["n_c", "d_t", "d_s", "d_r", "n_q", "s_q"]


def load(folders):
    runs = [json.load(open(f"{f}/summary.json")) for f in folders]
    table = {}
    for run in runs:
        for p in run["points"]:
            key = (p["values"]["fragment"], int(p["values"]["terminals.count"]) // 6)
            d = p["summary"]["request_delays"]
            row = {f"{c}_mean": d[c]["mean_ns"] / 1e6 for c in PARTS + ["r_tot"]}
            row.update({f"{c}_max": d[c]["max_ns"] / 1e6 for c in PARTS})
            row["sum_max"] = d["sum_of_max_ns"] / 1e6
            row["glitches"] = p["summary"]["glitches"]["count"]
            table.setdefault(key, []).append(row)
    return {k: {m: statistics.median(r[m] for r in rows) for m in rows[0]} for k, rows in table.items()}


def main(folders):
    t = load(folders)
    sizes = ["40KiB", "80KiB", "120KiB", "160KiB"]
    loads = sorted({k[1] for k in t})
    out = []

    def claim(name, ok, detail):
        out.append((name, "yes" if ok else "no", detail))

    def f(x):
        return f"{x:.1f}"

    # J1(a): average R_tot non-decreasing in load, dips of at most 2 %
    worst = min(
        t[(s, b)]["r_tot_mean"] / t[(s, a)]["r_tot_mean"] - 1
        for s in sizes
        for a, b in zip(loads, loads[1:])
    )
    claim("J1(a) avg R_tot grows with load", worst >= -0.02, f"largest dip {100 * worst:+.1f} %")
    top = loads[-1]
    r = [t[(s, top)]["r_tot_mean"] for s in sizes]
    claim("J1(b) avg R_tot(40) < (80) < (120) < (160) at 50/I", r == sorted(r) and len(set(r)) == 4,
          " < ".join(f(x) for x in r) + " ms")
    heavy = [l for l in loads if l >= 40]

    def largest(s, l, stat="mean"):
        row = t[(s, l)]
        return max(PARTS, key=lambda c: row[f"{c}_{stat}"])

    ok40 = all(largest("40KiB", l) == "s_q" for l in heavy)
    okbig = all(largest(s, l) == "n_q" for s in ["120KiB", "160KiB"] for l in heavy)
    claim("J1(c) at >= 40/I: S_Q largest for 40 KiB, N_Q for 120 and 160 KiB", ok40 and okbig,
          "; ".join(f"{s}: " + ",".join(largest(s, l) for l in heavy) for s in sizes))
    sm = [t[(s, top)]["sum_max"] for s in sizes]
    claim("J2(a) at 50/I Σmax(40) largest, Σmax(160) smallest",
          sm[0] == max(sm) and sm[3] == min(sm), ", ".join(f(x) for x in sm) + " ms")
    low = [l for l in loads if l <= 25]
    inc = all(
        all(t[(a, l)]["sum_max"] < t[(b, l)]["sum_max"] for a, b in zip(sizes, sizes[1:]))
        for l in low
    )
    claim("J2(c) at <= 25/I Σmax increases with P_S", inc,
          "; ".join(f"{l}/I: " + ",".join(f(t[(s, l)]["sum_max"]) for s in sizes) for l in low))
    nq15 = [t[(s, 15)]["n_q_max"] for s in sizes]
    claim("J3(a) at 15/I N_Q^max increases with P_S", nq15 == sorted(nq15),
          ", ".join(f(x) for x in nq15) + " ms")
    nq50 = [t[(s, 50)]["n_q_max"] for s in sizes]
    claim("J3(b) at 50/I N_Q^max about constant (max/min <= 1.5)", max(nq50) / min(nq50) <= 1.5,
          ", ".join(f(x) for x in nq50) + f" ms (max/min {max(nq50) / min(nq50):.2f})")
    sq15 = [t[(s, 15)]["s_q_max"] for s in sizes]
    claim("J3(c) at 15/I S_Q^max(80), (120) < (40) < (160)",
          sq15[1] < sq15[0] and sq15[2] < sq15[0] and sq15[0] < sq15[3],
          ", ".join(f(x) for x in sq15) + " ms")
    sq50 = [t[(s, 50)]["s_q_max"] for s in sizes]
    claim("J3(d) at 50/I S_Q^max(40) the largest", sq50[0] == max(sq50),
          ", ".join(f(x) for x in sq50) + " ms")
    glitches = sum(row["glitches"] for row in t.values())
    print(f"medians over {len(folders)} run(s); glitches at all points: {glitches}")
    print("| claim | holds | vodbench (P_S = 40, 80, 120, 160 KiB) |")
    print("|---|---|---|")
    for name, ok, detail in out:
        print(f"| {name} | {ok} | {detail} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
