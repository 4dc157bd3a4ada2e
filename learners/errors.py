"""The refusals of educable's learners that a front end shows as one line, as it shows
bridge.errors' (a module with no imports, so that the command line can name them without
importing numpy)."""


class Unsolvable(ValueError):
    """A game's values cannot be given as asked: best play scores without bound, or a part of its
    graph is too large to solve exactly and value iteration cannot bound its error."""
