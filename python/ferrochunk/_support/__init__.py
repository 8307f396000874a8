"""Generic helpers the package shares: messages that name a rejected value
(``validate``), optional imports that name their extra (``optional``), and the
garbage-collector pause while many results are built (``gc``)."""
