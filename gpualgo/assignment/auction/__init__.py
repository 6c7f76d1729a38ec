"""The auction algorithm (Bertsekas): the serial versions, the GPU versions, the benchmark presets."""
