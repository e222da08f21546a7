"""Keyboard play for the grid worlds: ``get_keys_to_action`` for ``gymnasium.utils.play``.

Every benchmarkzoo grid world's action ``i`` is the move ``generators.grids.MOVES[i]`` (up,
right, down, left). Arrow keys and W/D/S/A play them. Grid worlds are turn-based and have no
no-op action (``play``'s default ``noop=0`` would walk up every frame), so play them with
``wait_on_player=True``::

    import gymnasium as gym
    from gymnasium.utils.play import play

    play(gym.make("benchmarkzoo/Maze-v0", render_mode="rgb_array"), wait_on_player=True, zoom=2)
"""

from __future__ import annotations

from benchmarkzoo.core.extras import require

#: Per move of ``MOVES`` (up, right, down, left): the letter key and the name of pygame's arrow key constant.
KEYS: tuple[tuple[str, str], ...] = (("w", "K_UP"), ("d", "K_RIGHT"), ("s", "K_DOWN"), ("a", "K_LEFT"))


class KeyboardPlay:
    """Mixin of the grid-world views whose action ``i`` is the move ``MOVES[i]``."""

    def get_keys_to_action(self) -> dict[tuple[int], int]:
        """The key combinations of ``gymnasium.utils.play``: one key per move, arrows and WASD.

        Returns:
            ``{(key code,): action}``: pygame key codes (``ord`` of the letter, pygame's arrow
            constants), as ``play`` compares them with the pressed keys.
        """
        pygame = require("pygame", "render", "keyboard play (get_keys_to_action)")
        mapping: dict[tuple[int], int] = {}
        for action, (letter, arrow) in enumerate(KEYS):
            mapping[(ord(letter),)] = action
            mapping[(int(getattr(pygame, arrow)),)] = action
        return mapping
