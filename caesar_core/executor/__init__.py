"""Where tasks run: this machine (``local``) or a Dask cluster's workers (``dask``), behind
one interface (``base.Executor``). See README "More than one machine"."""
