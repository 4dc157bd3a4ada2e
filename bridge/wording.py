"""Words for people: the one place counts are written with their noun."""


def plural(n: int, noun: str) -> str:
    """'1 position', '2 positions', '1,500 positions', '2 symmetry classes'."""
    if n == 1:
        return f"{n:,} {noun}"
    return f"{n:,} {noun}{'es' if noun.endswith(('s', 'sh', 'ch', 'x')) else 's'}"
