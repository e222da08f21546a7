"""``benchmarkzoo replay``: play one recorded episode of a results file again and write it as a picture.

- :mod:`.episode`: find the task and episode in the file, rebuild the policy, replay through the
  evaluation's own runner and compare the outcome with the recorded one.
- :mod:`.capture`: the policy wrapper that films the episode (``rgb_array`` frames, grid scenes).
- :mod:`.scenes`: what a grid world's state shows (walls, agents, goals), for the SVG.
- :mod:`.svg`: an animated SVG (rects and SMIL ``<animate>``, no script) of grid scenes.
- :mod:`.video`: GIF (Pillow) and MP4 (PyAV, when installed) of frames.
- :mod:`.command`: the click command.
"""
