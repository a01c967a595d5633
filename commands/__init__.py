"""commands: the ``denoise``, ``kwx`` and ``mining`` command lines.

Thin Typer layers over the library (:mod:`denoise`, :mod:`kwx`, :mod:`mining`) and the
engine (:mod:`engine`); what they share (options, progress, messages, the run of a
command) is :mod:`commands.common`. Nothing below imports this package.
"""
