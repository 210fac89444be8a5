"""What the pages show, worked out from the runs: capacity, headlines, labels, numbers, history."""
