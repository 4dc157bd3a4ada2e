"""The window: `educable serve`'s local web page, a second front end beside cli.py.

Like cli.py it only parses a request, calls one library function and presents the answer (a
template, or the JSON the matching command's --json prints); it holds no game or learning logic.
"""
