"""Constructing a view from its env's declared arguments (:class:`~benchmarkzoo.core.config.EnvConfig`).

Every view base (single, parallel, and their native vector forms) derives from
:class:`ConfiguredView`. A view that sets ``config_type`` gets, at class creation, a
``__signature__`` built from the config's fields between the base's own arguments (``num_envs``
first; the time limit, ``autoreset_mode`` and ``render_mode`` last) and a constructor that binds
the caller's arguments to it, checks them, resolves the generator, finds the id to name
(:func:`~benchmarkzoo.envs.identity.registered_id`), computes the simulator's parameters and
then calls the view's :meth:`_setup` (spaces, state: what is its own). A view without
``config_type`` keeps its base's plain constructor (generator and parameters passed in).
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from benchmarkzoo.core.config import EnvConfig, bind_arguments, config_signature
from benchmarkzoo.envs.identity import SpecNamed, registered_id, require_extras


class ConfiguredView(SpecNamed):
    """Mixin of the view bases; see the module docstring.

    Attributes:
        config_type: the env's :class:`EnvConfig` subclass, or ``None`` for a view built by hand.
        config: the checked config of this instance (set before :meth:`_setup`).
        base_arguments: the constructor's other arguments, bound (``num_envs``, the time limit, modes,
            and any a view adds to its trailing parameters, such as Panda's ``num_workers``).
        init_arguments: every constructor argument as the caller gave it, defaults applied: calling
            the class with them makes the same env again (a view that pickles by rebuilding).
    """

    config_type: ClassVar[type[EnvConfig] | None] = None
    # What _configure sets (a view narrows their types where it reads its own config's fields)
    config: EnvConfig
    generator: Any  # the env's Generator subclass (a view with no config_type may keep its own kind)
    params: Any  # the simulator's frozen Params dataclass (each simulator has its own)
    __signature__: ClassVar[inspect.Signature]  # set at class creation from the config's fields
    #: The base's own parameters before the config's fields (``num_envs`` for the vector bases).
    _leading_parameters: ClassVar[tuple[inspect.Parameter, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.config_type is not None:
            cls.__signature__ = config_signature(cls.config_type, cls._leading_parameters, cls._trailing_parameters())
            if "__init__" not in cls.__dict__:
                # installed on the class being created; mypy refuses any assignment to a method
                cls.__init__ = cls._configured_init  # type: ignore[method-assign, assignment]

    @classmethod
    def _trailing_parameters(cls) -> tuple[inspect.Parameter, ...]:
        """The parameters after the config's fields (a base adds its time limit with the config's default)."""
        return ()

    def _configured_init(self, *args: Any, **kwargs: Any) -> None:
        """The constructor of a view with a ``config_type`` (installed as its ``__init__``)."""
        raise NotImplementedError

    def _configure(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Bind, check and resolve the arguments; set :attr:`config`, ``generator``, ``params``, ``env_id``.

        Returns:
            the base's own arguments (those outside the config), bound with their defaults.
        """
        cls = type(self)
        require_extras(cls)
        config_type = cls.config_type
        if config_type is None:  # _configured_init is installed only with a config_type
            raise TypeError(f"{cls.__name__} has no config_type to bind its arguments to.")
        bound = bind_arguments(cls.__name__, cls.__signature__, args, kwargs, config_type.fixed_arguments())
        self.init_arguments = dict(bound)
        fields = {p.name: bound.pop(p.name) for p in config_type.parameters()}
        self.base_arguments = bound
        config = config_type(**fields)
        generator = config.make_generator(registered_id(cls))
        self.env_id = registered_id(cls, config, generator)
        self.config = config.checked(self.env_id)
        self.generator = generator
        self.params = self.config.sim_params(generator, self.env_id)
        return bound

    def _setup(self) -> None:
        """Build what is the view's own (spaces, simulator state) from :attr:`config` and :attr:`params`."""

    def _check_scenario(self, scenario: Any) -> Any:
        """``options["scenario"]`` validated for this env (the config's :meth:`~EnvConfig.check_scenario`)."""
        return self.config.check_scenario(scenario, self.generator, self.params, self.env_id)
