"""Deep Greedy Switching: the serial version, the GPU versions, the benchmark presets."""
