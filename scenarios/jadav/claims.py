#!/usr/bin/env python3
"""Judges Jadav et al.'s claims J1-J7 (Figs. 4-10) on runs of the scenarios of this folder.

    for s in 1 2 3 4 5; do
      vodbench run scenarios/jadav/fig4-5-6-fragment-size.toml --seed $s --out out/f4-$s
    done
    python3 scenarios/jadav/claims.py out/f4-1 out/f4-2 out/f4-3 out/f4-4 out/f4-5

(the same for fig7-8-9-stripe-factor.toml and fig10-si-ratio.toml; the folders given must be
runs of one file). Reads each folder's summary.json (the points' `request_delays`), takes the
median over the folders of every figure, and prints each claim with the figures it rests on
and whether it holds, by the pass criteria of ../shared/papers/notes/jadav.md §6. Only the
standard library.
"""
import json
import statistics
import sys

PARTS = ["n_c", "d_t", "d_s", "d_r", "n_q", "s_q"]


def point_key(p, interfaces):
    """(series label, streams per interface node) of a point."""
    v = p["values"]
    if "point" in v:  # fig10: "8I/33S 25/I"
        ratio, per = v["point"].split()
        return ratio, int(per.split("/")[0])
    label = v.get("fragment") or v.get("stripe")
    return label, int(v["terminals.count"]) // interfaces


def load(folders):
    runs = [json.load(open(f"{f}/summary.json")) for f in folders]
    names = {r["scenario"] for r in runs}
    if len(names) != 1:
        sys.exit(f"the folders hold runs of different files: {sorted(names)}")
    table = {}
    for run in runs:
        for p in run["points"]:
            s = p["summary"]
            d = s["request_delays"]
            row = {f"{c}_mean": d[c]["mean_ns"] / 1e6 for c in PARTS + ["r_tot"]}
            row.update({f"{c}_max": d[c]["max_ns"] / 1e6 for c in PARTS})
            row["sum_max"] = d["sum_of_max_ns"] / 1e6
            row["glitches"] = s["glitches"]["count"]
            table.setdefault(point_key(p, 6), []).append(row)
    med = {k: {m: statistics.median(r[m] for r in rows) for m in rows[0]} for k, rows in table.items()}
    return names.pop(), med


def f(x):
    return f"{x:.1f}"


def largest(row, stat="mean"):
    return max(PARTS, key=lambda c: row[f"{c}_{stat}"])


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0] * len(xs)
    for rank, i in enumerate(order):
        r[i] = rank
    return r


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    d2 = sum((a - b) ** 2 for a, b in zip(rx, ry))
    return 1 - 6 * d2 / (n * (n * n - 1))


def fig4(t, claim):
    sizes = ["40KiB", "80KiB", "120KiB", "160KiB"]
    loads = sorted({k[1] for k in t})
    worst = min(
        t[(s, b)]["r_tot_mean"] / t[(s, a)]["r_tot_mean"] - 1
        for s in sizes
        for a, b in zip(loads, loads[1:])
    )
    claim("J1(a) avg R_tot grows with load", worst >= -0.02, f"largest dip {100 * worst:+.1f} %")
    r = [t[(s, 50)]["r_tot_mean"] for s in sizes]
    claim("J1(b) avg R_tot(40) < (80) < (120) < (160) at 50/I", r == sorted(r) and len(set(r)) == 4,
          " < ".join(f(x) for x in r) + " ms")
    heavy = [l for l in loads if l >= 40]
    ok40 = all(largest(t[("40KiB", l)]) == "s_q" for l in heavy)
    okbig = all(largest(t[(s, l)]) == "n_q" for s in ["120KiB", "160KiB"] for l in heavy)
    claim("J1(c) at >= 40/I: S_Q largest for 40 KiB, N_Q for 120 and 160 KiB", ok40 and okbig,
          "; ".join(f"{s}: " + ",".join(largest(t[(s, l)]) for l in heavy) for s in sizes))
    sm = [t[(s, 50)]["sum_max"] for s in sizes]
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


def fig7(t, claim):
    ss = ["S=2", "S=4", "S=6", "S=8"]
    loads = sorted({k[1] for k in t})
    ordered = 0
    for l in loads:
        r = [t[(s, l)]["r_tot_mean"] for s in ss]
        ordered += all(a > b or a >= 0.97 * b for a, b in zip(r, r[1:]))
    claim("J4(a) avg R_tot(S=2) > (4) > (6) > (8) at >= 80 % of loads", ordered >= 0.8 * len(loads),
          f"at {ordered} of {len(loads)} loads; 50/I: " + ", ".join(f(t[(s, 50)]["r_tot_mean"]) for s in ss) + " ms")
    higher = sum(
        t[("S=2", l)]["n_q_mean"] >= max(t[(s, l)]["n_q_mean"] for s in ss[1:]) for l in loads
    )
    claim("J4(b) avg N_Q(S=2) the highest at >= 80 % of loads", higher >= 0.8 * len(loads),
          f"at {higher} of {len(loads)} loads")
    heavy = [l for l in loads if l >= 30]
    ok = all(
        min(t[(s, l)]["n_q_max"], t[(s, l)]["s_q_max"])
        >= 2 * max(t[(s, l)]["n_c_max"], t[(s, l)]["d_t_max"], t[(s, l)]["d_s_max"], t[(s, l)]["d_r_max"])
        for s in ss
        for l in heavy
    )
    claim("J5(a) at >= 30/I N_Q^max and S_Q^max >= 2x every other component's maximum", ok,
          "50/I S=2: N_Q " + f(t[("S=2", 50)]["n_q_max"]) + ", S_Q " + f(t[("S=2", 50)]["s_q_max"])
          + ", D_T " + f(t[("S=2", 50)]["d_t_max"]) + " ms")
    nq2 = [t[("S=2", l)]["n_q_max"] for l in loads if l >= 15]
    claim("J5(b) S=2: N_Q^max about constant over 15-50/I (max/min <= 1.5)", max(nq2) / min(nq2) <= 1.5,
          f"{f(min(nq2))}-{f(max(nq2))} ms (max/min {max(nq2) / min(nq2):.2f})")
    below = all(t[("S=8", l)]["n_q_max"] <= t[("S=2", l)]["n_q_max"] for l in loads if l <= 30)
    lo = (t[("S=8", 30)]["n_q_max"] - t[("S=8", 5)]["n_q_max"]) / 25
    hi = (t[("S=8", 50)]["n_q_max"] - t[("S=8", 35)]["n_q_max"]) / 15
    claim("J5(c) S=8: N_Q^max <= S=2's up to 30/I, and rises >= 3x as steeply over 35-50/I", below and hi >= 3 * lo,
          f"below S=2 up to 30/I: {'yes' if below else 'no'}; slope {lo:.2f} → {hi:.2f} ms per stream")
    ok = all(t[(s, l)]["n_q_max"] > t[(s, l)]["s_q_max"] for s in ss for l in (15, 50))
    claim("J6(a) N_Q^max > S_Q^max for every S at 15 and 50/I", ok,
          "; ".join(f"{l}/I: " + ",".join(f"{f(t[(s, l)]['n_q_max'])}/{f(t[(s, l)]['s_q_max'])}" for s in ss) for l in (15, 50)))
    ok = True
    detail = []
    for l in (15, 50):
        sq = [t[(s, l)]["s_q_max"] for s in sss] if (sss := ss) else []
        spread = (max(sq) - min(sq)) / statistics.mean(sq)
        ok &= spread <= 0.3 and sq[3] >= sq[0]
        detail.append(f"{l}/I: " + ", ".join(f(x) for x in sq) + f" (range {100 * spread:.0f} % of mean)")
    claim("J6(b) S_Q^max varies little with S (range <= 30 %), S=8 >= S=2", ok, "; ".join(detail))
    r15 = spearman([2, 4, 6, 8], [t[(s, 15)]["n_q_max"] for s in ss])
    r50 = spearman([2, 4, 6, 8], [t[(s, 50)]["n_q_max"] for s in ss])
    claim("J6(c) N_Q^max falls with S at 15/I and rises with S at 50/I (Spearman <= -0.8, >= 0.8)",
          r15 <= -0.8 and r50 >= 0.8, f"ρ = {r15:+.1f} at 15/I, {r50:+.1f} at 50/I")


def fig10(t, claim):
    heavy = [l for l in sorted({k[1] for k in t}) if l >= 35]
    for stat in ("mean", "max"):
        a = all(largest(t[("8I/33S", l)], stat) == "s_q" for l in heavy)
        b = all(largest(t[("6I/35S", l)], stat) == "n_q" for l in heavy)
        claim(f"J7(a,b) at >= 35/I ({stat}): S_Q largest for 8I/33S, N_Q for 6I/35S", a and b,
              "8I/33S: " + ",".join(largest(t[("8I/33S", l)], stat) for l in heavy)
              + "; 6I/35S: " + ",".join(largest(t[("6I/35S", l)], stat) for l in heavy))
    loads = [l for l in sorted({k[1] for k in t}) if l >= 15]
    more = all(t[("8I/33S", l)]["s_q_mean"] > t[("6I/35S", l)]["s_q_mean"] for l in loads)
    ratio = t[("8I/33S", 50)]["s_q_mean"] / t[("6I/35S", 50)]["s_q_mean"]
    claim("J7(c) avg S_Q(8/33) > S_Q(6/35) at >= 15/I, >= 2x at 50/I", more and ratio >= 2,
          f"higher at every load >= 15/I: {'yes' if more else 'no'}; {ratio:.2f}x at 50/I")
    rt = all(t[("8I/33S", l)]["r_tot_mean"] > t[("6I/35S", l)]["r_tot_mean"] for l in heavy)
    claim("J7(c) avg R_tot(8/33) > R_tot(6/35) at >= 35/I", rt,
          ", ".join(f"{l}/I: {f(t[('8I/33S', l)]['r_tot_mean'])} vs {f(t[('6I/35S', l)]['r_tot_mean'])}" for l in heavy) + " ms")


def main(folders):
    name, t = load(folders)
    out = []

    def claim(text, ok, detail):
        out.append((text, "yes" if ok else "**no**", detail))

    if "fig4" in name:
        fig4(t, claim)
    elif "fig7" in name:
        fig7(t, claim)
    elif "fig10" in name:
        fig10(t, claim)
    else:
        sys.exit(f"{name}: not a scenario this script judges")
    glitches = sum(row["glitches"] for row in t.values())
    print(f"{name}: medians over {len(folders)} run(s); glitches at all points: {glitches}")
    print("| claim | holds | vodbench |")
    print("|---|---|---|")
    for text, ok, detail in out:
        print(f"| {text} | {ok} | {detail} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
