"""Line charts as SVG, written by hand (plotext draws for terminals only).

One chart: weeks on x, one line per arm (the mean over seeds) with a band of ± one
standard deviation, a legend, and the command that reproduces it as the title's
tooltip.  Colours come from a palette that stays apart for the common forms of colour
blindness, and every line also has its own dash pattern.
"""

from __future__ import annotations

import math
from html import escape

from brainview.sim.stats import Spread

W, H = 860, 380
LEFT, RIGHT, TOP, BOTTOM = 60, 270, 40, 44
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "4 4", "1 2", "10 4")


def _nice(lo: float, hi: float) -> tuple[float, float, float]:
    """Axis bounds and tick step covering ``lo..hi``."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = step * (lo // step)
    end = step * -(-hi // step)
    return start, end, step


def chart(
    title: str,
    ylabel: str,
    lines: dict[str, list[Spread]],
    command: str,
    *,
    scale: float = 1.0,
    y_range: tuple[float, float] | None = None,
) -> str:
    """An SVG document: one line (and band) per label."""
    weeks = max((len(v) for v in lines.values()), default=0)
    pts = [
        (s.mean * scale, (s.sd or 0) * scale)
        for v in lines.values()
        for s in v
        if s.mean is not None
    ]
    if y_range is not None:
        lo, hi, step = _nice(*y_range)
    else:
        lo, hi, step = _nice(
            min((m - d for m, d in pts), default=0.0), max((m + d for m, d in pts), default=1.0)
        )
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (pw * i / max(1, weeks - 1))

    def y(v: float) -> float:
        v = min(max(v, lo), hi)
        return TOP + ph * (1 - (v - lo) / (hi - lo))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)} — reproduce: {escape(command)}</title>",
        f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    tick = lo
    while tick <= hi + step / 1000:
        out.append(
            f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            'stroke="#dddddd"/>'
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>'
        )
        tick += step
    for i in range(weeks):
        out.append(f'<text x="{x(i):.1f}" y="{TOP + ph + 16}" text-anchor="middle">{i + 1}</text>')
    out.append(
        f'<text x="{LEFT + pw / 2}" y="{H - 8}" text-anchor="middle">simulated week</text>'
        f'<text x="14" y="{TOP + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + ph / 2})">{escape(ylabel)}</text>'
    )
    for k, (label, spreads) in enumerate(lines.items()):
        colour, dash = PALETTE[k % len(PALETTE)], DASHES[k % len(DASHES)]
        known = [(i, s.mean, s.sd or 0) for i, s in enumerate(spreads) if s.mean is not None]
        if not known:
            continue
        upper = [(x(i), y((mean + sd) * scale)) for i, mean, sd in known]
        lower = [(x(i), y((mean - sd) * scale)) for i, mean, sd in reversed(known)]
        band = " ".join(f"{a:.1f},{b:.1f}" for a, b in upper + lower)
        out.append(f'<polygon points="{band}" fill="{colour}" fill-opacity="0.10" stroke="none"/>')
        path = " ".join(f"{x(i):.1f},{y(mean * scale):.1f}" for i, mean, _sd in known)
        style = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{style}/>'
        )
        ly = TOP + 14 + 18 * k
        out.append(
            f'<line x1="{W - RIGHT + 12}" x2="{W - RIGHT + 40}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="2"{style}/>'
            f'<text x="{W - RIGHT + 46}" y="{ly}">{escape(label)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
