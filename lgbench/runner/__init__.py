"""Study runner (layer 5): study files, grids, references, errors, execution."""
