"""Joins loom_gpu_bench's output (its 'gpu-app' lines and Google Benchmark JSON) with
gpu_peer.py's (torch.compile) into one markdown table: per app, each Loom variant's time (the
app's own GPU schedule, the heuristic's, the autotuner's) as a ratio to torch.compile's, and
its achieved bandwidth against the device copy.

usage: gpu_table.py LOOM_STDOUT LOOM_JSON TORCH_JSON
"""
import json
import sys

NAMES = {"gpu": "hand", "gpu-auto": "heuristic", "gpu-autotune": "autotuned"}


def main(loom_stdout, loom_json, torch_json):
    runs = {}  # (app, variant) -> facts
    for line in open(loom_stdout):
        parts = line.split()
        if parts[:1] == ["gpu-app"]:
            runs[(parts[1], parts[2])] = {"min_bytes": float(parts[3]), "jit_ms": float(parts[4]),
                                          "schedule_ms": float(parts[5])}
    for b in json.load(open(loom_json))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            variant, app = b["run_name"].split("/")[:2]
            runs[(app, variant)]["ms"] = b["real_time"]
    peer = json.load(open(torch_json))
    copy = peer["copy_gbps"]
    print(f"Device: {peer['device']}; PyTorch {peer['torch']}; device-to-device copy "
          f"{copy:.0f} GB/s (read + write, 1 GiB, torch).\n")
    print("| app | Loom schedule | Loom ms | torch.compile ms | Loom/torch | Loom achieved | "
          "of copy | Loom JIT ms (scheduling) | torch max abs err |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (app, variant), r in runs.items():
        if "ms" not in r:
            continue
        p = peer["apps"].get(app, {})
        gbps = r["min_bytes"] / (r["ms"] * 1e-3) / 1e9
        torch_ms = f"{p['ms']:.4f}" if "ms" in p else p.get("error", "-")
        ratio = f"{r['ms'] / p['ms']:.2f}" if "ms" in p else ""
        err = f"{p['max_abs_err']:.2g}" if "max_abs_err" in p else ""
        print(f"| {app} | {NAMES.get(variant, variant)} | {r['ms']:.4f} | {torch_ms} | {ratio} | "
              f"{gbps:.0f} GB/s | {100 * gbps / copy:.0f}% | {r['jit_ms']:.1f} "
              f"({r['schedule_ms']:.1f}) | {err} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
