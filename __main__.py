"""`python -m educable`: the `educable` command."""
from educable.cli import main

main(prog_name="educable")
