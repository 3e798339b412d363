"""The passes, one module or subpackage each, composed in a fixed order by
`dp2ddp.migrate.pipeline`: detect, hazards, model_wrap, devices, data, rank_zero,
process_group. A pass's NAME is its module name and its golden fixtures' prefix.
`_support` holds what passes share and is not a pass itself."""
