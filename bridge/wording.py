"""Words for people: the one place counts are written with their noun."""

from educable.learners.training import ENDLESS_PLIES


def plural(n: int, noun: str) -> str:
    """'1 position', '2 positions', '1,500 positions', '2 symmetry classes'."""
    if n == 1:
        return f"{n:,} {noun}"
    return f"{n:,} {noun}{'es' if noun.endswith(('s', 'sh', 'ch', 'x')) else 's'}"


def guarantee_words(g: dict) -> str:
    """One side of an exact judgement (learners.exact.Guarantee.as_dict) in words a newcomer reads right:
    the worst result against any opponent, whether perfect play does better, and the reachable positions
    where the agent may choose a move worse than the best."""
    if "against_best_response" in g:          # a game of chance (learners.chance.judged_side)
        words = f"{g['guaranteed']} against a best-responding opponent"
        return words + (", as perfect play does" if g["perfect"] else
                        f" (perfect play: {g['game_value']:.2%})" if "won" in g["guaranteed"] else
                        f" (perfect play: {g['game_value']:+.4f})")
    words = f"guarantees a {g['guaranteed']} against any opponent"
    words += ", as perfect play does" if g["perfect"] else " (perfect play guarantees more)"
    if not g["subgame_perfect"]:
        words += f"; it may throw a position's value away in {plural(g['mistakes'], 'position')} it can reach"
    return words


def results_words(data: dict) -> str:
    """A training run's games in words: who won them and, apart from self-play, how many the agent lost
    (the last at which game); in self-play every win is a loss of the agent's other side."""
    if "mean_score" in data:
        return f"scores: {data['mean_score']:.3f} on average over the run's games"
    tally = ", ".join(f"drawn {v}" if k == "draw" else
                      f"{v} never ended (cut after {ENDLESS_PLIES:,} moves and learned from as draws)" if k == "cut" else
                      f"{k} won {v}" for k, v in sorted(data["results"].items()))
    last = "" if data["last_loss"] is None else f", the last at game {data['last_loss']:,}"
    if data["vs"] == "self":
        if data["last_loss"] is None:
            return f"results: {tally}"
        return f"results: {tally} (self-play: every win is a loss of the agent's other side{last})"
    return f"results: {tally}; the agent lost {data['losses'] or 'none'}{last}"


def score_text(score: float) -> str:
    """A game of score's points as people read them: whole where they are, else to six places."""
    return str(int(score)) if score == int(score) else f"{score:.6f}".rstrip("0")


def score_result(score: float) -> str:
    """How a finished game of score is stored: score(N)."""
    return f"score({score_text(score)})"
