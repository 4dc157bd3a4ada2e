"""Words for people: the one place counts are written with their noun."""


def plural(n: int, noun: str) -> str:
    """'1 position', '2 positions', '1,500 positions'."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
