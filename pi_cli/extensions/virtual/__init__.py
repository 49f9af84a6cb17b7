"""Virtual models (pi's ``pi.register_virtual_model``): a selectable model whose every request an
extension's router sends to a physical model (:mod:`pi_cli.extensions.virtual.router`)."""
