"""The numbers of the challenge's specification (read from rules/race.pl by the bridge)."""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class RaceSpec:
    """The Gory Details as numbers; the defaults are the challenge's."""

    width: int = 53
    height: int = 15
    goal_x: int = 49
    colours: int = 16
    empty_colours: int = 8
    teleporter_colours: int = 4
    teleport_range: int = 4
    trap_colours: int = 2
    wall_colours: int = 2
    view_radius: int = 2
    start_specimens: int = 15
    children_per_turn: int = 10
    genome_bits: int = 100
    max_age: int = 100
    turns: int = 10000
    crossover_switch: float = 0.05
    mutation: float = 0.01
    goal_fitness: int = 50
    min_start_rows: int = 10
    start_reach: int = 100

    @classmethod
    def from_pairs(cls, pairs: list[list]) -> RaceSpec:
        """From race_spec/1's [Name, Value] pairs; ValueError names an unknown or inconsistent one."""
        known = {f.name for f in fields(cls)}
        values = {}
        for name, value in pairs:
            if name not in known:
                raise ValueError(f"rules/race.pl: unknown spec/2 name {name!r}")
            values[name] = value
        spec = cls(**values)
        kinds = spec.empty_colours + spec.teleporter_colours + spec.trap_colours + spec.wall_colours
        if kinds != spec.colours:
            raise ValueError(f"rules/race.pl: the colour kinds add up to {kinds}, not colours = {spec.colours}")
        if spec.teleporter_colours % 2:
            raise ValueError("rules/race.pl: teleporter_colours must be even (offsets come in opposite pairs)")
        if spec.goal_x + spec.teleport_range > spec.width:
            raise ValueError("rules/race.pl: width must fit goal_x + teleport_range")
        return spec
