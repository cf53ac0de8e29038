"""Lets PySpark find the ``jelly`` data source without ``jelly.spark.register(spark)``.

PySpark registers the ``DefaultSource`` of every top-level module named ``pyspark_*`` it finds
on ``sys.path``: a wheel install puts this one in ``site-packages``, an editable install puts
the project root there (a static ``.pth`` file, see docs/spark.md).  Where it is not found,
call ``jelly.spark.register(spark)``.
"""

from jelly.spark.datasource import JellyDataSource as DefaultSource  # noqa: F401
