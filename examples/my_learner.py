"""A learner of your own, in numpy, against educable's PettingZoo environment: tabular Q-learning by
self-play on the tutorial's game file (examples/pile.pl), then judged exactly and rated in a
tournament beside educable's own learners.  Run from the project folder:

    .venv/bin/python examples/my_learner.py
"""
import numpy as np

import educable

educable.load_games("examples/pile.pl")
env = educable.env("pile")
states = int(env.observation_space("ann")["observation"].high[0]) + 1   # pile has no cells: a state is its number
Q = np.zeros((states, env.action_space("ann").n))
rng = np.random.default_rng(0)


def greedy(obs):
    """The legal action of the highest Q."""
    return int(np.argmax(np.where(obs["action_mask"] == 1, Q[obs["observation"][0]], -np.inf)))


for episode in range(3000):
    env.reset(seed=episode)
    last = {}                                   # each player's last state and action
    for agent in env.agent_iter():
        obs, reward, done, _, _ = env.last()
        if agent in last:                       # the outcome of this player's last move is known now
            s, a = last[agent]
            ahead = 0.0 if done else Q[obs["observation"][0]][obs["action_mask"] == 1].max()
            Q[s, a] += 0.3 * (reward + ahead - Q[s, a])
        if done:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = greedy(obs) if rng.random() > 0.3 else int(rng.choice(legal))
        last[agent] = (obs["observation"][0], action)
        env.step(action)

kb = educable.KnowledgeBase("pile.db")
judged = kb.evaluate("pile", greedy, exact=True)
print("exactly:", ", ".join(f"{side.replace('_', ' ')} {judged[side]['guaranteed']}"
                            + (" (perfect)" if judged[side]["perfect"] else "") for side in ("as_first", "as_second")))
kb.train("pile", "quinn", learner="qlearn", games=300, seed=1)
table = kb.tournament("pile", [educable.player("mine", greedy), "quinn", "random"], games=20, seed=1)
for row in table["ratings"]:
    print(f"{row['player']:<8} scores {100 * row['score']:.0f}%")
