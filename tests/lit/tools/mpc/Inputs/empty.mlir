// A file with no graph in it.
