#!/usr/bin/env python3
"""Judges Jadav et al.'s claims J1-J7 (Figs. 4-10) on runs of the scenarios of this folder.

    for s in 1 2 3 4 5; do
      vodbench run scenarios/jadav/fig4-5-6-fragment-size.toml --seed $s --out out/f4-$s
    done
    python3 scenarios/jadav/claims.py out/f4-1 out/f4-2 out/f4-3 out/f4-4 out/f4-5

(the same for fig7-8-9-stripe-factor.toml and fig10-si-ratio.toml; the folders given must be
runs of one file). Reads each folder's summary.json (the points' `request_delays`), takes the
median over the folders of every figure, and prints each claim with the figures it rests on
and its verdict by the whole pass criterion of the notes (Jadav et al.'s claims as listed in
the reading this folder's README.md names): "holds" when every condition of the criterion
holds, "in part" when some do, "fails" when none does. J2(b) has no numeric criterion in the
notes; it is judged as the claim says (S_Q^max's least-squares slope over the loads larger
for 40 KiB than for 160 KiB). Only the standard library.
"""
import json
import statistics
import sys

PARTS = ["n_c", "d_t", "d_s", "d_r", "n_q", "s_q"]
# the fragment request's size (`[server.network] request_bytes`, 128 B by default)
REQUEST_BYTES = 128
NET_RATE = 13.8e6
DISK_RATE = 10e6


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


def slope(xs, ys):
    """Least-squares slope of ys on xs."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def r_squared(xs, ys):
    """R² of the least-squares line of ys on xs."""
    b = slope(xs, ys)
    mx, my = statistics.mean(xs), statistics.mean(ys)
    ss_res = sum((y - my - b * (x - mx)) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return 1 - ss_res / ss_tot if ss_tot else 1.0


def kib(label):
    return float(label.removesuffix("KiB")) * 1024


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
    # fixed parts: N_C = (P_S + request) / 13.8 MB/s and D_T = P_S / 10 MB/s within ±1 %
    nc = max(abs(t[(s, l)]["n_c_mean"] / ((kib(s) + REQUEST_BYTES) / NET_RATE * 1e3) - 1) for s in sizes for l in loads)
    dt = max(abs(t[(s, l)]["d_t_mean"] / (kib(s) / DISK_RATE * 1e3) - 1) for s in sizes for l in loads)
    claim("Fixed parts: N_C = (P_S + request) / 13.8 MB/s and D_T = P_S / 10 MB/s within ±1 %",
          [nc <= 0.01, dt <= 0.01],
          f"N_C off by up to {100 * nc:.1f} % (" + ", ".join(f(t[(s, 50)]["n_c_mean"]) for s in sizes)
          + f" ms at 50/I), D_T by up to {100 * dt:.2f} %")
    worst = min(
        t[(s, b)]["r_tot_mean"] / t[(s, a)]["r_tot_mean"] - 1
        for s in sizes
        for a, b in zip(loads, loads[1:])
    )
    claim("J1(a) avg R_tot grows with load (dips <= 2 %)", [worst >= -0.02], f"largest dip {100 * worst:+.1f} %")
    r = [t[(s, 50)]["r_tot_mean"] for s in sizes]
    claim("J1(b) avg R_tot(40) < (80) < (120) < (160) at 50/I", [r == sorted(r) and len(set(r)) == 4],
          " < ".join(f(x) for x in r) + " ms")
    heavy = [l for l in loads if l >= 40]
    ok40 = all(largest(t[("40KiB", l)]) == "s_q" for l in heavy)
    okbig = all(largest(t[(s, l)]) == "n_q" for s in ["120KiB", "160KiB"] for l in heavy)
    claim("J1(c) at >= 40/I: S_Q largest for 40 KiB, N_Q for 120 and 160 KiB", [ok40, okbig],
          "; ".join(f"{s}: " + ",".join(largest(t[(s, l)]) for l in heavy) for s in sizes))
    var = {c: max(max(t[(s, l)][f"{c}_mean"] for l in loads) / min(t[(s, l)][f"{c}_mean"] for l in loads) - 1
                  for s in sizes) for c in ("d_s", "d_r")}
    claim("J1(d) mean D_S and D_R vary < 5 % over loads (every P_S)", [var["d_s"] < 0.05, var["d_r"] < 0.05],
          f"D_S by up to {100 * var['d_s']:.1f} %, D_R by up to {100 * var['d_r']:.1f} %")
    fits = [(l, r_squared([kib(s) for s in sizes], [t[(s, l)]["r_tot_mean"] for s in sizes])) for l in loads if l >= 30]
    claim("§8.1 avg R_tot proportional to P_S: linear fit R² >= 0.9 at every load >= 30/I",
          [r2 >= 0.9 for _, r2 in fits], ", ".join(f"{l}/I {r2:.3f}" for l, r2 in fits))
    sm = [t[(s, 50)]["sum_max"] for s in sizes]
    claim("J2(a) at 50/I Σmax(40) largest, Σmax(160) smallest",
          [sm[0] == max(sm), sm[3] == min(sm)], ", ".join(f(x) for x in sm) + " ms")
    sq40 = slope(loads, [t[("40KiB", l)]["s_q_max"] for l in loads])
    sq160 = slope(loads, [t[("160KiB", l)]["s_q_max"] for l in loads])
    claim("J2(b) S_Q^max grows faster with load at 40 KiB than at 160 KiB (least-squares slope)",
          [sq40 > sq160], f"{sq40:.2f} against {sq160:.2f} ms per stream per I node")
    low = [l for l in loads if l <= 25]
    inc = all(
        all(t[(a, l)]["sum_max"] < t[(b, l)]["sum_max"] for a, b in zip(sizes, sizes[1:]))
        for l in low
    )
    above = [l for l in loads if l > 25]
    cross = [l for l in above if t[("40KiB", l)]["sum_max"] > t[("160KiB", l)]["sum_max"]]
    claim("J2(c) at <= 25/I Σmax increases with P_S; Σmax(40) crosses Σmax(160) between 25 and 50/I", [inc, bool(cross)],
          "; ".join(f"{l}/I: " + ",".join(f(t[(s, l)]["sum_max"]) for s in sizes) for l in low)
          + "; Σmax(40) > Σmax(160) at " + (", ".join(f"{l}/I" for l in cross) if cross else "no load") + " above 25/I")
    dom = {l: [t[(s, l)]["n_q_max"] + t[(s, l)]["s_q_max"] for s in sizes] for l in (15, 50)}
    claim("J2(d) N_Q^max + S_Q^max at 80 KiB within 10 % of the minimum over P_S at 15 and 50/I",
          [dom[l][1] <= 1.1 * min(dom[l]) for l in (15, 50)],
          "; ".join(f"{l}/I: " + ", ".join(f(x) for x in dom[l]) + " ms" for l in (15, 50)))
    nq15 = [t[(s, 15)]["n_q_max"] for s in sizes]
    claim("J3(a) at 15/I N_Q^max increases with P_S", [nq15 == sorted(nq15)],
          ", ".join(f(x) for x in nq15) + " ms")
    nq50 = [t[(s, 50)]["n_q_max"] for s in sizes]
    claim("J3(b) at 50/I N_Q^max about constant (max/min <= 1.5)", [max(nq50) / min(nq50) <= 1.5],
          ", ".join(f(x) for x in nq50) + f" ms (max/min {max(nq50) / min(nq50):.2f})")
    sq15 = [t[(s, 15)]["s_q_max"] for s in sizes]
    claim("J3(c) at 15/I S_Q^max(80), (120) < (40) < (160)",
          [sq15[1] < sq15[0] and sq15[2] < sq15[0], sq15[0] < sq15[3]],
          ", ".join(f(x) for x in sq15) + " ms")
    sq50 = [t[(s, 50)]["s_q_max"] for s in sizes]
    claim("J3(d) at 50/I S_Q^max(40) the largest", [sq50[0] == max(sq50)],
          ", ".join(f(x) for x in sq50) + " ms")


def fig7(t, claim):
    ss = ["S=2", "S=4", "S=6", "S=8"]
    loads = sorted({k[1] for k in t})
    ordered = 0
    for l in loads:
        r = [t[(s, l)]["r_tot_mean"] for s in ss]
        ordered += all(a > b or a >= 0.97 * b for a, b in zip(r, r[1:]))
    claim("J4(a) avg R_tot(S=2) > (4) > (6) > (8) at >= 80 % of loads", [ordered >= 0.8 * len(loads)],
          f"at {ordered} of {len(loads)} loads; 50/I: " + ", ".join(f(t[(s, 50)]["r_tot_mean"]) for s in ss) + " ms")
    higher = sum(
        t[("S=2", l)]["n_q_mean"] >= max(t[(s, l)]["n_q_mean"] for s in ss[1:]) for l in loads
    )
    claim("J4(b) avg N_Q(S=2) the highest at >= 80 % of loads", [higher >= 0.8 * len(loads)],
          f"at {higher} of {len(loads)} loads")
    heavy = [l for l in loads if l >= 30]
    ok = all(
        min(t[(s, l)]["n_q_max"], t[(s, l)]["s_q_max"])
        >= 2 * max(t[(s, l)]["n_c_max"], t[(s, l)]["d_t_max"], t[(s, l)]["d_s_max"], t[(s, l)]["d_r_max"])
        for s in ss
        for l in heavy
    )
    claim("J5(a) at >= 30/I N_Q^max and S_Q^max >= 2x every other component's maximum", [ok],
          "50/I S=2: N_Q " + f(t[("S=2", 50)]["n_q_max"]) + ", S_Q " + f(t[("S=2", 50)]["s_q_max"])
          + ", D_T " + f(t[("S=2", 50)]["d_t_max"]) + " ms")
    nq2 = [t[("S=2", l)]["n_q_max"] for l in loads if l >= 15]
    claim("J5(b) S=2: N_Q^max about constant over 15-50/I (max/min <= 1.5)", [max(nq2) / min(nq2) <= 1.5],
          f"{f(min(nq2))}-{f(max(nq2))} ms (max/min {max(nq2) / min(nq2):.2f})")
    below = all(t[("S=8", l)]["n_q_max"] <= t[("S=2", l)]["n_q_max"] for l in loads if l <= 30)
    lo = (t[("S=8", 30)]["n_q_max"] - t[("S=8", 5)]["n_q_max"]) / 25
    hi = (t[("S=8", 50)]["n_q_max"] - t[("S=8", 35)]["n_q_max"]) / 15
    claim("J5(c) S=8: N_Q^max <= S=2's up to 30/I, and rises >= 3x as steeply over 35-50/I", [below, hi >= 3 * lo],
          f"below S=2 up to 30/I: {'yes' if below else 'no'}; slope {lo:.2f} → {hi:.2f} ms per stream")
    ok = all(t[(s, l)]["n_q_max"] > t[(s, l)]["s_q_max"] for s in ss for l in (15, 50))
    claim("J6(a) N_Q^max > S_Q^max for every S at 15 and 50/I", [ok],
          "; ".join(f"{l}/I: " + ",".join(f"{f(t[(s, l)]['n_q_max'])}/{f(t[(s, l)]['s_q_max'])}" for s in ss) for l in (15, 50)))
    narrow, ordered = True, True
    detail = []
    for l in (15, 50):
        sq = [t[(s, l)]["s_q_max"] for s in ss]
        spread = (max(sq) - min(sq)) / statistics.mean(sq)
        narrow &= spread <= 0.3
        ordered &= sq[3] >= sq[0]
        detail.append(f"{l}/I: " + ", ".join(f(x) for x in sq) + f" (range {100 * spread:.0f} % of mean)")
    claim("J6(b) S_Q^max varies little with S (range <= 30 %), S=8 >= S=2", [narrow, ordered], "; ".join(detail))
    r15 = spearman([2, 4, 6, 8], [t[(s, 15)]["n_q_max"] for s in ss])
    r50 = spearman([2, 4, 6, 8], [t[(s, 50)]["n_q_max"] for s in ss])
    claim("J6(c) N_Q^max falls with S at 15/I and rises with S at 50/I (Spearman <= -0.8, >= 0.8)",
          [r15 <= -0.8, r50 >= 0.8], f"ρ = {r15:+.1f} at 15/I, {r50:+.1f} at 50/I")


def fig10(t, claim):
    heavy = [l for l in sorted({k[1] for k in t}) if l >= 35]
    for stat in ("mean", "max"):
        a = all(largest(t[("8I/33S", l)], stat) == "s_q" for l in heavy)
        b = all(largest(t[("6I/35S", l)], stat) == "n_q" for l in heavy)
        claim(f"J7(a,b) at >= 35/I ({stat}): S_Q largest for 8I/33S, N_Q for 6I/35S", [a, b],
              "8I/33S: " + ",".join(largest(t[("8I/33S", l)], stat) for l in heavy)
              + "; 6I/35S: " + ",".join(largest(t[("6I/35S", l)], stat) for l in heavy))
    loads = [l for l in sorted({k[1] for k in t}) if l >= 15]
    more = all(t[("8I/33S", l)]["s_q_mean"] > t[("6I/35S", l)]["s_q_mean"] for l in loads)
    ratio = t[("8I/33S", 50)]["s_q_mean"] / t[("6I/35S", 50)]["s_q_mean"]
    claim("J7(c) avg S_Q(8/33) > S_Q(6/35) at >= 15/I, >= 2x at 50/I", [more, ratio >= 2],
          f"higher at every load >= 15/I: {'yes' if more else 'no'}; {ratio:.2f}x at 50/I")
    rt = all(t[("8I/33S", l)]["r_tot_mean"] > t[("6I/35S", l)]["r_tot_mean"] for l in heavy)
    claim("J7(c) avg R_tot(8/33) > R_tot(6/35) at >= 35/I", [rt],
          ", ".join(f"{l}/I: {f(t[('8I/33S', l)]['r_tot_mean'])} vs {f(t[('6I/35S', l)]['r_tot_mean'])}" for l in heavy) + " ms")


def main(folders):
    name, t = load(folders)
    out = []

    def claim(text, conditions, detail):
        held = sum(conditions)
        verdict = "holds" if held == len(conditions) else "in part" if held else "**fails**"
        out.append((text, verdict, detail))

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
    print("| claim | verdict | vodbench |")
    print("|---|---|---|")
    for text, verdict, detail in out:
        print(f"| {text} | {verdict} | {detail} |")
    counts = [sum(v.strip("*") == w for _, v, _ in out) for w in ("holds", "in part", "fails")]
    print(f"\n{counts[0]} hold, {counts[1]} in part, {counts[2]} fail.")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
