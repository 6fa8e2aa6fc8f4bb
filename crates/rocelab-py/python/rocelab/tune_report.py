"""The page ``rocelab tune`` writes (``report.html``): one self-contained HTML file, no script,
with the best configuration against the starting one, the Pareto front as an SVG scatter plot
when the search had two objectives, and every trial."""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any, Dict, List

if TYPE_CHECKING:
    from .tune import Goal, TuneResult

STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em;text-align:right}
th{background:#eee}td.l,th.l{text-align:left}tr.best td{background:#e6f4e6}tr.bad td{color:#999}
.note{color:#555;max-width:60em}"""


def _num(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4g}"
    return html.escape(str(v))


def _change(start: Any, best: Any, g: "Goal") -> str:
    """The change from the start, in %, with whether it goes the objective's way."""
    if not isinstance(start, (int, float)) or not isinstance(best, (int, float)) or start == 0:
        return ""
    pct = (best - start) / abs(start) * 100
    better = (best < start) if g.direction == "minimize" else (best > start)
    word = "better" if better else ("same" if best == start else "worse")
    return f"{pct:+.1f} % ({word})"


def _comparison(result: "TuneResult") -> str:
    plan = result.plan
    rows = []
    for b in result.best:
        head = f"<h3>Trial {b['trial']}</h3>" if len(result.best) > 1 else ""
        body = ["<tr><th class=l>setting</th><th>starting</th><th>best</th><th>change</th></tr>"]
        for p in plan.parameters:
            body.append(f"<tr><td class=l>{html.escape(p['path'])}</td><td>as written</td><td>{_num(b[p['path']])}</td><td></td></tr>")
        for g in plan.objectives + plan.constraints:
            kind = "objective, " + g.direction if g in plan.objectives else "constraint"
            body.append(
                f"<tr><td class=l>{html.escape(g.name)} ({kind})</td><td>{_num(result.start.get(g.name))}</td>"
                f"<td>{_num(b.get(g.name))}</td><td>{_change(result.start.get(g.name), b.get(g.name), g)}</td></tr>"
            )
        body.append(
            f"<tr><td class=l>digest</td><td>{_num(result.start.get('digest'))}</td><td>{_num(b.get('digest'))}</td><td></td></tr>"
        )
        rows.append(head + "<table>" + "".join(body) + "</table>")
    return "".join(rows)


def _scatter(result: "TuneResult") -> str:
    """The two objectives of every trial that ran, the front joined by a line, the start as a
    square."""
    gx, gy = result.plan.objectives
    ok = [r for r in result.trials if r.get("error") is None and not math.isnan(r[gx.name]) and not math.isnan(r[gy.name])]
    pts = [(r[gx.name], r[gy.name]) for r in ok]
    start = result.start
    if start.get("error") is None:
        pts.append((start[gx.name], start[gy.name]))
    if not pts:
        return "<p>No trial ran to the end.</p>"
    w, h, m = 560, 380, 50
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)

    def sx(v: float) -> float:
        return m + (v - x0) / (x1 - x0) * (w - 2 * m)

    def sy(v: float) -> float:
        return h - m - (v - y0) / (y1 - y0) * (h - 2 * m)

    front = {id(r) for r in result.best}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img">']
    parts.append(f'<rect x="{m}" y="{m}" width="{w - 2 * m}" height="{h - 2 * m}" fill="none" stroke="#888"/>')
    line = sorted((r[gx.name], r[gy.name]) for r in result.best)
    if len(line) > 1:
        d = " ".join(f"{sx(a):.1f},{sy(b):.1f}" for a, b in line)
        parts.append(f'<polyline points="{d}" fill="none" stroke="#2a7" stroke-width="1.5"/>')
    for r in ok:
        colour = "#2a7" if id(r) in front else "#999"
        parts.append(
            f'<circle cx="{sx(r[gx.name]):.1f}" cy="{sy(r[gy.name]):.1f}" r="4" fill="{colour}">'
            f"<title>trial {r['trial']}</title></circle>"
        )
    if start.get("error") is None:
        parts.append(
            f'<rect x="{sx(start[gx.name]) - 5:.1f}" y="{sy(start[gy.name]) - 5:.1f}" width="10" height="10" '
            f'fill="none" stroke="#c33" stroke-width="2"><title>starting configuration</title></rect>'
        )
    for v, anchor in ((x0, "start"), (x1, "end")):
        parts.append(f'<text x="{sx(v):.1f}" y="{h - m + 16}" font-size="11" text-anchor="{anchor}">{_num(v)}</text>')
    for v in (y0, y1):
        parts.append(f'<text x="{m - 4}" y="{sy(v) + 4:.1f}" font-size="11" text-anchor="end">{_num(v)}</text>')
    parts.append(f'<text x="{w / 2}" y="{h - 8}" font-size="12" text-anchor="middle">{html.escape(gx.name)} ({gx.direction})</text>')
    parts.append(
        f'<text x="14" y="{h / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 14 {h / 2})">'
        f"{html.escape(gy.name)} ({gy.direction})</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def _trials(result: "TuneResult") -> str:
    plan = result.plan
    goals = plan.objectives + plan.constraints
    head = ["trial", *[p["path"] for p in plan.parameters], *[g.name for g in goals], "meets constraints", "digest", "error"]
    out = ["<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in head) + "</tr>"]
    best = {id(r) for r in result.best}
    for r in [{**result.start, "trial": "start"}, *result.trials]:
        cls = "best" if id(r) in best else ("bad" if r.get("error") or not r.get("feasible") else "")
        cells = [r.get("trial"), *[r.get(p["path"], "as written") for p in plan.parameters], *[r.get(g.name) for g in goals]]
        cells += ["yes" if r.get("feasible") else "no", r.get("digest"), r.get("error")]
        out.append(f"<tr class='{cls}'>" + "".join(f"<td>{_num(c)}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def write_report(path: str, name: str, result: "TuneResult") -> None:
    plan = result.plan
    objectives = " and ".join(f"{g.direction} {g.name}" for g in plan.objectives)
    constraints = ", ".join(f"{g.name} {'≤ ' + _num(g.max) if g.max is not None else '≥ ' + _num(g.min)}" for g in plan.constraints)
    body: List[str] = [
        f"<h1>rocelab tune: {html.escape(name)}</h1>",
        f"<p class=note>{len(result.trials)} trials of Ray Tune with Optuna's TPE sampler (seed {plan.seed}), "
        f"each one simulation under the file's simulation seed, to {html.escape(objectives)}"
        + (f", subject to {html.escape(constraints)}" if constraints else "")
        + ". Constraints choose among the trials; they do not steer the sampler.</p>",
    ]
    if not result.best:
        body.append("<h2>Best configuration</h2><p>No trial met the constraints.</p>")
    elif len(plan.objectives) == 2:
        n = len(result.best)
        body.append(f"<h2>Pareto front</h2><p class=note>{n} trial{'' if n == 1 else 's'} that no other beats on both objectives "
                    "(green; the start is the red square). best.yaml holds each as a variant <code>pareto-N</code>.</p>")
        body.append(_scatter(result))
        body.append("<h2>The front against the starting configuration</h2>" + _comparison(result))
    else:
        body.append("<h2>Best against the starting configuration</h2><p class=note>best.yaml holds it as the variant "
                    "<code>tuned</code>: <code>rocelab config best.yaml --variant tuned</code> renders it.</p>")
        body.append(_comparison(result))
    body.append("<h2>Trials</h2>" + _trials(result))
    page = (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>rocelab tune: {html.escape(name)}</title><style>{STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)

