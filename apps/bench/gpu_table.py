"""Joins loom_gpu_bench's output (its 'gpu-app' lines and Google Benchmark JSON) with
gpu_peer.py's (torch.compile) into one markdown table.

usage: gpu_table.py LOOM_STDOUT LOOM_JSON TORCH_JSON
"""
import json
import sys


def main(loom_stdout, loom_json, torch_json):
    apps = {}
    for line in open(loom_stdout):
        parts = line.split()
        if parts[:1] == ["gpu-app"]:
            apps[parts[1]] = {"min_bytes": float(parts[2]), "jit_ms": float(parts[3])}
    for b in json.load(open(loom_json))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            name = b["run_name"].split("/")[1]
            apps[name]["loom_ms"] = b["real_time"]
    peer = json.load(open(torch_json))
    copy = peer["copy_gbps"]
    print(f"Device: {peer['device']}; PyTorch {peer['torch']}; device-to-device copy "
          f"{copy:.0f} GB/s (read + write, 1 GiB, torch).\n")
    print("| app | Loom ms | torch.compile ms | Loom/torch | Loom achieved | of copy | "
          "torch achieved | Loom JIT ms | torch max abs err | note |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, a in apps.items():
        p = peer["apps"].get(name, {})
        loom_gbps = a["min_bytes"] / (a["loom_ms"] * 1e-3) / 1e9
        if "ms" in p:
            torch_gbps = a["min_bytes"] / (p["ms"] * 1e-3) / 1e9
            print(f"| {name} | {a['loom_ms']:.4f} | {p['ms']:.4f} | {a['loom_ms'] / p['ms']:.2f} | "
                  f"{loom_gbps:.0f} GB/s | {100 * loom_gbps / copy:.0f}% | {torch_gbps:.0f} GB/s | "
                  f"{a['jit_ms']:.1f} | {p['max_abs_err']:.2g} | {p.get('note', '')} |")
        else:
            print(f"| {name} | {a['loom_ms']:.4f} | error | | {loom_gbps:.0f} GB/s | "
                  f"{100 * loom_gbps / copy:.0f}% | | {a['jit_ms']:.1f} | | {p.get('error', '')} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
