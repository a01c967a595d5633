"""engine: runs the library over many pages, on this machine's cores or on Spark.

It sits above the domain packages (:mod:`denoise`, :mod:`kwx`, :mod:`mining`), which
never import it: a job is a library function of one page; the engine reads the pages,
hands them to worker processes (:mod:`engine.batch`) or to Spark executors
(:mod:`engine.spark`), writes the results whole and resumably, and counts what it
skipped. Block codecs (:mod:`engine.blockcodec`) and JSON string encoding
(:mod:`engine.jsonstr`) are how results travel.
"""
