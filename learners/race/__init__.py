"""The rat race (seed 003): the genetic-algorithm challenge's controller, vectorised in numpy."""
