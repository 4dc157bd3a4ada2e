"""A picture of a track: each cell's colour number and meaning, start rows, specimens."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from educable.learners.race.track import EMPTY, KIND_NAMES, TELEPORTER, TRAP, WALL, Track  # noqa: E402

SHADES = {EMPTY: "#f4f1e8", TELEPORTER: "#9ec5ff", TRAP: "#ffd28a", WALL: "#3a3a3a"}


def _figure(track: Track, title: str):
    """The track drawn once; returns the figure, its axes and an empty scatter for specimens."""
    spec = track.spec
    h, w = spec.height, spec.width
    fig, ax = plt.subplots(figsize=(w * 0.32, h * 0.36 + 1.2), dpi=100)
    kinds = track.kind[track.colour]
    # the cells as one image (810 rectangles took a second to add and to draw), each cell's number on it
    shades = np.array([matplotlib.colors.to_rgb(SHADES[k]) for k in sorted(SHADES)])      # kinds are 0-3
    ax.imshow(shades[kinds], extent=(0, w, h, 0), interpolation="nearest", zorder=0)
    for y in range(h):
        for x in range(w):
            ax.text(x + 0.5, y + 0.5, str(int(track.colour[y, x])), ha="center", va="center", fontsize=5,
                    color="white" if kinds[y, x] == WALL else "#555555")
    dy_, dx_ = np.nonzero(track.deadly & (kinds != WALL))
    ax.scatter(dx_ + 0.5, dy_ + 0.5, marker="x", color="#d62728", s=18, lw=1, label="deadly (trapped)")
    for y, x in zip(*np.nonzero(kinds == TELEPORTER), strict=True):
        ox, oy = track.offset[track.colour[y, x]]
        ax.annotate("", xy=(x + 0.5 + ox, y + 0.5 + oy), xytext=(x + 0.5, y + 0.5),
                    arrowprops=dict(arrowstyle="->", color="#1f5fbf", lw=0.5, alpha=0.5))
    ax.axvline(spec.goal_x, color="#2ca02c", lw=2)
    for y in track.starts:
        ax.add_patch(plt.Rectangle((-0.9, y + 0.1), 0.8, 0.8, color="#2ca02c"))
    dots = ax.scatter([], [], s=[], color="#8b008b", alpha=0.8, label="specimens")
    legend = [plt.Rectangle((0, 0), 1, 1, color=SHADES[k], label=KIND_NAMES[k]) for k in SHADES]
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=legend + handles + [plt.Rectangle((0, 0), 1, 1, color="#2ca02c", label="start row / goal")],
              loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=7, fontsize=7, frameon=False)
    ax.set_xlim(-1, w)
    ax.set_ylim(h, 0)
    ax.set_aspect("equal")
    ax.set_xticks(range(0, w, 5))
    ax.set_yticks(range(0, h, 2))
    ax.tick_params(labelsize=6)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig, ax, dots


def _place(dots, specimens: np.ndarray | None) -> None:
    """Specimens (x, y) as dots, bigger where many share a cell."""
    if specimens is None or not len(specimens):
        dots.set_offsets(np.zeros((0, 2)))
        dots.set_sizes([])
        return
    xy, counts = np.unique(specimens, axis=0, return_counts=True)
    dots.set_offsets(xy + 0.5)
    dots.set_sizes(8 + 6 * np.sqrt(counts))


def track_png(path: str | Path, track: Track, specimens: np.ndarray | None = None, title: str = "") -> Path:
    """Draw ``track``; ``specimens`` are (x, y) rows drawn as dots (bigger where many)."""
    fig, _, dots = _figure(track, title)
    _place(dots, specimens)
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def track_gif(path: str | Path, track: Track, frames: Iterable[tuple[np.ndarray, str]], ms: int = 200) -> int:
    """An animated GIF of ``track``: one frame per (specimens, title), ``ms`` milliseconds each; frames written."""
    from PIL import Image

    fig, ax, dots = _figure(track, " ")
    label = ax.title
    dots.set_animated(True)              # the track is drawn once; each frame redraws the dots and the title
    label.set_animated(True)
    fig.canvas.draw()
    track_only = fig.canvas.copy_from_bbox(fig.bbox)
    images: list[Image.Image] = []
    for specimens, title in frames:
        fig.canvas.restore_region(track_only)
        _place(dots, specimens)
        label.set_text(title)
        ax.draw_artist(dots)
        ax.draw_artist(label)
        frame = Image.fromarray(np.asarray(fig.canvas.buffer_rgba())[:, :, :3])
        # The first frame's 64 colours serve every frame (the same track and dots): finding a palette
        # a frame took 80 ms, mapping onto one takes 8
        images.append(frame.quantize(colors=64) if not images else
                      frame.quantize(palette=images[0], dither=Image.Dither.NONE))
    plt.close(fig)
    images[0].save(Path(path), format="GIF", save_all=True, append_images=images[1:], duration=ms, loop=0)
    return len(images)
