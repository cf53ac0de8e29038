"""Lets PySpark find the ``jelly`` data source without ``jelly.spark.register(spark)``.

PySpark looks for installed top-level modules named ``pyspark_*`` that define ``DefaultSource``
(a wheel install; editable installs are not found, so call ``jelly.spark.register(spark)``).
"""

from jelly.spark.datasource import JellyDataSource as DefaultSource  # noqa: F401
