"""PNG plots of a peers result: latency vs size, recall per system and category, tokens per turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..locomo import CATEGORIES
from ._common import section_ok


def write_plots(result: dict[str, Any], out_dir: Path) -> dict[str, str]:
    """PNG plots: latency vs size, recall per system and category, tokens per turn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}

    if section_ok(result, "latency"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name, cases in result["latency"]["systems"].items():
            pts = [(c["memories"], c["p50_ms"], c["p95_ms"]) for c in cases if "p95_ms" in c]
            if not pts:
                continue
            xs = [p[0] for p in pts]
            (line,) = ax.plot(xs, [p[2] for p in pts], marker="o", label=f"{name} p95")
            ax.plot(xs, [p[1] for p in pts], marker=".", ls="--", color=line.get_color(), alpha=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memories in the queried user's scope")
        ax.set_ylabel("search latency, ms (solid p95, dashed p50)")
        ax.set_title("Search latency vs size (k=5, query embedding included)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = out_dir / "peers_latency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["latency"] = str(path)

    if section_ok(result, "locomo"):
        systems = {n: e for n, e in result["locomo"]["systems"].items() if "skipped" not in e}
        names = list(systems)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
        metrics = ["recall_any@5", "recall_any@10", "recall_all@5", "recall_all@10"]
        width = 0.8 / max(1, len(names))
        for i, name in enumerate(names):
            pos = np.arange(len(metrics)) + i * width
            ax1.bar(pos, [systems[name][m] for m in metrics], width, label=name)
        ax1.set_xticks(np.arange(len(metrics)) + width * (len(names) - 1) / 2, metrics)
        ax1.set_ylim(0, 1)
        ax1.set_title("LoCoMo evidence recall, overall")
        ax1.legend(fontsize=7)
        cats = [
            c
            for c in CATEGORIES.values()
            if any(c in e["by_category@10"] for e in systems.values())
        ]
        for i, name in enumerate(names):
            by = systems[name]["by_category@10"]
            pos = np.arange(len(cats)) + i * width
            ax2.bar(pos, [by.get(c, {}).get("recall_any", 0.0) for c in cats], width, label=name)
        ax2.set_xticks(np.arange(len(cats)) + width * (len(names) - 1) / 2, cats)
        ax2.set_ylim(0, 1)
        ax2.set_title("recall_any@10 by question category")
        fig.tight_layout()
        path = out_dir / "peers_recall.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["recall"] = str(path)

    if section_ok(result, "tokens"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for conv in result["tokens"]["conversations"]:
            xs = list(range(1, conv["turns"] + 1))
            (line,) = ax.plot(
                xs,
                conv["full_history_tokens"],
                ls="--",
                label=f"{conv['conversation']} full history",
            )
            ax.plot(
                xs,
                conv["memory_agent_tokens"],
                color=line.get_color(),
                label=f"{conv['conversation']} memory agent",
            )
        ax.axhline(result["tokens"]["budget_tokens"], color="grey", lw=0.8, ls=":", label="budget")
        ax.set_xlabel("turn (user message)")
        ax.set_ylabel("prompt tokens")
        ax.set_title("Prompt tokens per turn on LoCoMo")
        ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        path = out_dir / "peers_tokens.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["tokens"] = str(path)
    return written
