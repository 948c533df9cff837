#!/usr/bin/env python3
"""Checks Pappas et al.'s client claims P1-P6 against saved runs of clients-fig1-7.toml and
clients-fig1-2-packets.toml:

    vodbench run scenarios/pappas/clients-fig1-7.toml --out out/pappas-clients
    vodbench run scenarios/pappas/clients-fig1-2-packets.toml --out out/pappas-packets
    python3 scenarios/pappas/claims.py out/pappas-clients out/pappas-packets

Prints, per client, the monitored client's loss (%), receive CPU (%) and frame rate per
rate x packet size, then each claim's pass criterion (reading notes §6) and whether it holds.
"""
import json
import os
import sys


def load(folder):
    pts = {}
    for name in sorted(os.listdir(os.path.join(folder, "points"))):
        d = os.path.join(folder, "points", name)
        man = json.load(open(os.path.join(d, "manifest.json")))
        s = json.load(open(os.path.join(d, "summary.json")))
        sc = man["resolved_scenario"]
        client = sc["clients"]["profile"][0]["name"]
        rate = s["transmission"]["monitored"]
        bit = sc["videos"]["bit_rate"]
        pkt = sc["transmission"]["packet"]
        pts[(client, pkt, bit)] = rate
    return pts


def mbit(s):
    if s.endswith("kbit/s"):
        return float(s[:-6]) / 1000
    return float(s.replace("Mbit/s", ""))


def main(folders):
    pts = {}
    for f in folders:
        pts.update(load(f))
    clients = sorted({k[0] for k in pts})
    pkts = sorted({k[1] for k in pts}, key=lambda p: int(p.replace("KiB", "")))
    rates = sorted({k[2] for k in pts}, key=mbit)
    def cell(c, p, r, f):
        x = pts.get((c, p, r))
        return "     -" if x is None else f"{f(x):6.1f}"

    for c in clients:
        print(f"\n{c}: loss % (rows: packet; columns: Mbit/s)")
        print("        " + " ".join(f"{mbit(r):>6g}" for r in rates))
        for p in pkts:
            if any((c, p, r) in pts for r in rates):
                print(f"{p:>7} " + " ".join(cell(c, p, r, lambda x: 100 * x["loss_ratio"]) for r in rates))
        print(f"{c}: receive CPU % / frame rate at 8KiB")
        print("        " + " ".join(f"{100 * pts[(c, '8KiB', r)]['rx_cpu_ratio']:6.1f}" for r in rates))
        print("        " + " ".join(f"{pts[(c, '8KiB', r)]['frame_rate_fps']:6.1f}" for r in rates))

    def lossfree_limit(c, p):
        # the highest rate below which every rate is loss-free
        lim = 0
        for r in rates:
            if (c, p, r) not in pts:
                continue
            if pts[(c, p, r)]["loss_ratio"] > 0:
                break
            lim = mbit(r)
        return lim

    def at(c, p, r):
        return pts[(c, p, r)]

    print("\nclaims:")
    res = []
    # P1
    nonincr = all(
        all(at(c, pkts[i + 1], r)["loss_ratio"] <= at(c, pkts[i], r)["loss_ratio"] + 1e-12
            for i in range(len(pkts) - 1) for r in rates
            if (c, pkts[i], r) in pts and (c, pkts[i + 1], r) in pts)
        for c in ("sparc20", "ultra1"))
    faster = all(lossfree_limit("ultra1", p) > lossfree_limit("sparc20", p) for p in pkts)
    lim = {c: [lossfree_limit(c, p) for p in pkts] for c in ("sparc20", "ultra1")}
    res.append(("P1 loss non-increasing in packet size (Sparc-20, Ultra-1)", nonincr, ""))
    res.append(("P1 Ultra-1 loss-free limit > Sparc-20's at every size", faster,
                f"limits (Mbit/s) sparc20 {lim['sparc20']}, ultra1 {lim['ultra1']}"))
    # P2
    slow = [(mbit(r), at("pc-slow", "8KiB", r)) for r in rates]
    p2a = all(x["loss_ratio"] == 0 for m, x in slow if m <= 4) and all(
        x["loss_ratio"] > 0 for m, x in slow if 5 <= m <= 10)
    cpu9 = at("pc-slow", "8KiB", "9Mbit/s")["rx_cpu_ratio"]
    res.append(("P2 pc-slow loss 0 at <= 4 Mbit/s and > 0 at 5-10 Mbit/s (8KiB)", p2a,
                "loss % " + ", ".join(f"{m:g}: {100 * x['loss_ratio']:.1f}" for m, x in slow if m <= 10)))
    res.append(("P2 pc-slow CPU 90 % +- 5 at 9 Mbit/s (calibrated)", abs(cpu9 - 0.9) <= 0.05,
                f"{100 * cpu9:.1f} %"))
    # P3
    fast = [(mbit(r), at("pc-fast", "8KiB", r)) for r in rates if mbit(r) <= 10]
    p3 = all(x["loss_ratio"] == 0 for _, x in fast) and all(
        x["rx_cpu_ratio"] < 0.5 * at("pc-slow", "8KiB", r)["rx_cpu_ratio"]
        for r in rates if mbit(r) <= 10 for x in [at("pc-fast", "8KiB", r)])
    res.append(("P3 pc-fast loss-free to 10 Mbit/s with CPU < half pc-slow's", p3,
                f"CPU at 9 Mbit/s {100 * at('pc-fast', '8KiB', '9Mbit/s')['rx_cpu_ratio']:.1f} %"))
    # P4
    u = [(mbit(r), at("ultra1", "8KiB", r)["frame_rate_fps"]) for r in rates]
    p4 = all(f >= 0.95 * 30 for m, f in u if m <= 10) and all(f < 0.9 * 30 for m, f in u if m >= 15)
    res.append(("P4 ultra1 fps >= 95 % at <= 10 Mbit/s, < 90 % at >= 15", p4,
                "fps " + ", ".join(f"{m:g}: {f:.1f}" for m, f in u)))
    # P5
    s15 = at("pc-slow", "8KiB", "1500kbit/s")["frame_rate_fps"]
    sl = [(mbit(r), at("pc-slow", "8KiB", r)) for r in rates if mbit(r) <= 10]
    p5 = s15 < 0.95 * 30 and all(sl[i + 1][1]["frame_rate_fps"] <= sl[i][1]["frame_rate_fps"]
                                 for i in range(len(sl) - 1))
    res.append(("P5 pc-slow fps < 95 % at 1.5 Mbit/s, falling with rate", p5,
                "fps " + ", ".join(f"{m:g}: {x['frame_rate_fps']:.1f}" for m, x in sl)))
    # P6
    f6 = [(mbit(r), at("pc-fast", "8KiB", r)["frame_rate_fps"]) for r in rates if mbit(r) <= 10]
    res.append(("P6 pc-fast fps >= 95 % up to 10 Mbit/s", all(f >= 0.95 * 30 for _, f in f6),
                "fps " + ", ".join(f"{m:g}: {f:.1f}" for m, f in f6)))
    for name, ok, detail in res:
        print(f"  {'holds' if ok else 'DOES NOT HOLD'}: {name}" + (f"  [{detail}]" if detail else ""))


if __name__ == "__main__":
    main(sys.argv[1:] or ["out/pappas-clients", "out/pappas-packets"])
