"""Server-side SVG bar plots of a problem set's item statistics (no JavaScript, no CDN).

Each plot is data for ``pages/running/bars.html``: bars with their geometry already computed
here, so the template only places rectangles and labels.
"""

from __future__ import annotations

from dataclasses import dataclass

from grading.statistics import ItemStats

BAR_WIDTH = 48
GAP = 16
HEIGHT = 140
TOP = 18
"""Room above the highest bar for its value label."""
BOTTOM = 26
"""Room under the baseline for the bar labels."""


@dataclass(frozen=True)
class PlotBar:
    """One bar: its label, the value shown above it, and where it is drawn."""

    label: str
    shown: str
    x: int
    y: int
    height: int
    negative: bool = False

    @property
    def middle(self) -> int:
        """Return the horizontal centre of the bar, where its labels go."""
        return self.x + BAR_WIDTH // 2


@dataclass(frozen=True)
class Plot:
    """A bar plot: its id, title (the SVG's accessible text), size and bars."""

    id: str
    title: str
    width: int
    height: int
    baseline: int
    bars: list[PlotBar]

    @property
    def description(self) -> str:
        """Return every bar's label and value, for readers who cannot see the plot."""
        return ", ".join(f"{bar.label}: {bar.shown}" for bar in self.bars)


def bar_plot(plot_id: str, title: str, values: list[tuple[str, float | None]],
             *, top: float = 1.0, signed: bool = False) -> Plot:
    """Return a plot of ``values`` (label, value; None drawn as no bar, shown "—").

    Bars are scaled to ``top``; with ``signed`` the baseline is in the middle and negative
    values hang below it (correlations from -1 to 1).
    """
    span = HEIGHT // 2 if signed else HEIGHT
    baseline = TOP + span
    bars = []
    for index, (label, value) in enumerate(values):
        x = GAP + index * (BAR_WIDTH + GAP)
        if value is None:
            bars.append(PlotBar(label, "—", x, baseline, 0))
            continue
        size = round(min(abs(value) / top, 1.0) * span) if top else 0
        negative = value < 0
        bars.append(PlotBar(label, f"{value:.2f}", x, baseline if negative else baseline - size,
                            size, negative))
    width = GAP + max(1, len(values)) * (BAR_WIDTH + GAP)
    height = TOP + (2 * span if signed else span) + BOTTOM
    return Plot(plot_id, title, width, height, baseline, bars)


def item_plots(items: list[ItemStats], titles: dict[str, str]) -> list[Plot]:
    """Return the plots of the statistics page: mean fraction of the points, fraction right
    at the first attempt, and discrimination, one bar per item."""
    labels = [f"#{item.position}" for item in items]
    means = [
        None if item.mean is None or not item.points else item.mean / item.points
        for item in items
    ]
    first = [
        None if not item.students else item.right_at_first_attempt / item.students
        for item in items
    ]
    discrimination = [item.discrimination.value for item in items]
    return [
        bar_plot("plot-mean", titles["mean"], list(zip(labels, means, strict=True))),
        bar_plot("plot-first", titles["first"], list(zip(labels, first, strict=True))),
        bar_plot("plot-discrimination", titles["discrimination"],
                 list(zip(labels, discrimination, strict=True)), signed=True),
    ]
