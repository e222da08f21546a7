"""The built-in catalogue: every env and generator benchmarkzoo ships, registered on ``import benchmarkzoo``.

Registration records names and entry-point strings only; no env module is imported here.
Adding an env means adding its ``register`` call below (and its scenario sets under
``scenarios/``); every test, suite and CLI listing then picks it up from the registry.
"""

from benchmarkzoo.registration import register, register_generator

_MAZE = "benchmarkzoo.envs.gridworld.maze"

register_generator("maze/dfs", f"{_MAZE}.generator:DFSMazeGenerator")
register_generator("maze/obstacles", f"{_MAZE}.generator:ObstacleMapGenerator")
register_generator("maze/rooms", f"{_MAZE}.generator:RoomsGenerator")

register(
    "benchmarkzoo/Maze-v0",
    kind="single",
    family="gridworld",
    entry_point=f"{_MAZE}.env:MazeEnv",
    vector_entry_point=f"{_MAZE}.vector_env:MazeVectorEnv",
    max_episode_steps=200,
    kwargs={"generator": "maze/dfs", "generator_kwargs": {"height": 11, "width": 11, "min_goal_distance": 4}},
    description="Reach the goal of a procedurally generated grid maze from an egocentric partial view.",
    baseline=f"{_MAZE}.baseline:ShortestPathPolicy",
    scenario_sets=("gridworld/maze", "gridworld/maze-obstacles", "gridworld/maze-rooms"),
    outcome_bounds=f"{_MAZE}.bounds:bounds",
)

_TREASURE = "benchmarkzoo.envs.gridworld.treasure"

register_generator("treasure/seabed", f"{_TREASURE}.generator:SeabedGenerator")
register_generator("treasure/classic", f"{_TREASURE}.generator:ClassicGenerator")

register(
    "benchmarkzoo/MO-Treasure-v0",
    kind="mo",
    family="gridworld",
    entry_point=f"{_TREASURE}.env:TreasureEnv",
    vector_entry_point=f"{_TREASURE}.vector_env:TreasureVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "treasure/seabed", "generator_kwargs": {"height": 11, "width": 11}},
    extras=("mo",),
    description="Deep-sea treasure on generated seabeds: treasure value vs time, with an exact Pareto front.",
    baseline=f"{_TREASURE}.baseline:LinearWeightPlanner",
    scenario_sets=("gridworld/treasure",),
    outcome_bounds=f"{_TREASURE}.bounds:bounds",
)

_QUAD = "benchmarkzoo.envs.control.quadrotor"

register_generator("quadrotor/hover", f"{_QUAD}.generator:HoverGenerator")
register_generator("quadrotor/goal", f"{_QUAD}.generator:GoalGenerator")

register(
    "benchmarkzoo/Quadrotor-v0",
    kind="single",
    family="control",
    entry_point=f"{_QUAD}.env:QuadrotorEnv",
    vector_entry_point=f"{_QUAD}.vector_env:QuadrotorVectorEnv",
    max_episode_steps=500,
    kwargs={"generator": "quadrotor/hover", "generator_kwargs": {}},
    description="Recover and hold a hover with a quadrotor of randomized mass, inertia and motors.",
    baseline=f"{_QUAD}.baseline:CascadedPIDPolicy",
    scenario_sets=("control/quadrotor-hover",),
    outcome_bounds=f"{_QUAD}.bounds:bounds",
)
register(
    "benchmarkzoo/Quadrotor-Goal-v0",
    kind="single",
    family="control",
    entry_point=f"{_QUAD}.env:QuadrotorEnv",
    vector_entry_point=f"{_QUAD}.vector_env:QuadrotorVectorEnv",
    max_episode_steps=500,
    kwargs={"generator": "quadrotor/goal", "generator_kwargs": {}},
    description="Fly a quadrotor of randomized mass, inertia and motors to a goal and stop there.",
    baseline=f"{_QUAD}.baseline:CascadedPIDPolicy",
    scenario_sets=("control/quadrotor-goal",),
    outcome_bounds=f"{_QUAD}.bounds:bounds",
)
register(
    "benchmarkzoo/MO-Quadrotor-v0",
    kind="mo",
    family="control",
    entry_point=f"{_QUAD}.mo_env:MOQuadrotorEnv",
    vector_entry_point=f"{_QUAD}.mo_vector_env:MOQuadrotorVectorEnv",
    max_episode_steps=200,
    kwargs={"generator": "quadrotor/goal", "generator_kwargs": {}},
    extras=("mo",),
    description="Fly a quadrotor of randomized mass, inertia and motors towards a goal: progress vs energy.",
    baseline=f"{_QUAD}.baseline:WeightedPIDPolicy",
    scenario_sets=("control/mo-quadrotor",),
    outcome_bounds=f"{_QUAD}.bounds:mo_bounds",
)

_PLATFORM = "benchmarkzoo.envs.control.platform"

register_generator("platform/gaps", f"{_PLATFORM}.generator:PlatformGenerator")

register(
    "benchmarkzoo/Platform-v0",
    kind="single",
    family="control",
    entry_point=f"{_PLATFORM}.env:PlatformEnv",
    vector_entry_point=f"{_PLATFORM}.vector_env:PlatformVectorEnv",
    max_episode_steps=50,
    kwargs={"generator": "platform/gaps", "generator_kwargs": {"num_platforms": 5}},
    description="Cross a row of platforms and gaps with parameterized moves: run, hop or leap, and how hard.",
    baseline=f"{_PLATFORM}.baseline:PlatformPlanner",
    scenario_sets=("control/platform",),
    outcome_bounds=f"{_PLATFORM}.bounds:bounds",
)

_MAZE_KEYS = "benchmarkzoo.envs.gridworld.maze_keys"

register_generator("maze_keys/key_door", f"{_MAZE_KEYS}.generator:KeyDoorGenerator")

register(
    "benchmarkzoo/MazeKeys-v0",
    kind="single",
    family="gridworld",
    entry_point=f"{_MAZE_KEYS}.env:MazeKeysEnv",
    vector_entry_point=f"{_MAZE_KEYS}.vector_env:MazeKeysVectorEnv",
    max_episode_steps=300,
    kwargs={
        "generator": "maze_keys/key_door",
        "generator_kwargs": {"maze": "maze/dfs", "maze_kwargs": {"height": 11, "width": 11, "min_goal_distance": 6}},
    },
    description="Fetch a key to open the locked door to the goal of a generated maze, from an egocentric view.",
    baseline=f"{_MAZE_KEYS}.baseline:KeyDoorPlanner",
    scenario_sets=("gridworld/maze-keys",),
    outcome_bounds=f"{_MAZE_KEYS}.bounds:bounds",
)

_MAPF = "benchmarkzoo.envs.multiagent.mapf"

register_generator("mapf/obstacles", f"{_MAPF}.generator:ObstacleMapGenerator")
register_generator("mapf/maze", f"{_MAPF}.generator:MazeMapGenerator")
register_generator("mapf/movingai", f"{_MAPF}.generator:MovingAIMapGenerator")

register(
    "benchmarkzoo/MAPF-v0",
    kind="parallel",
    family="multiagent",
    entry_point=f"{_MAPF}.env:MapfEnv",
    vector_entry_point=f"{_MAPF}.vector_env:MapfVectorEnv",
    max_episode_steps=128,
    kwargs={
        "generator": "mapf/obstacles",
        "generator_kwargs": {"height": 16, "width": 16, "num_agents": 8, "density": 0.2},
    },
    description="Grid multi-agent pathfinding from partial views: every agent to its goal, conflicts blocked.",
    baseline=f"{_MAPF}.baseline:PrioritizedPlanningPolicy",
    scenario_sets=("multiagent/mapf",),
    outcome_bounds=f"{_MAPF}.bounds:bounds",
)

register_generator("mapf/lifelong", f"{_MAPF}.generator:LifelongMapfGenerator")

register(
    "benchmarkzoo/MAPF-Lifelong-v0",
    kind="parallel",
    family="multiagent",
    entry_point=f"{_MAPF}.lifelong:LifelongMapfEnv",
    vector_entry_point=f"{_MAPF}.lifelong:LifelongMapfVectorEnv",
    max_episode_steps=128,
    kwargs={
        "generator": "mapf/lifelong",
        "generator_kwargs": {
            "base": "mapf/obstacles",
            "base_kwargs": {"height": 16, "width": 16, "num_agents": 8, "density": 0.2},
            "goals_per_agent": 128,
        },
    },
    description="Lifelong grid MAPF: a new goal on every arrival; throughput (goals per step) by the time limit.",
    baseline=f"{_MAPF}.baseline:LifelongPlanningPolicy",
    scenario_sets=("multiagent/mapf-lifelong",),
    outcome_bounds=f"{_MAPF}.bounds:lifelong_bounds",
)

register(
    "benchmarkzoo/MO-MAPF-v0",
    kind="moma",
    family="multiagent",
    entry_point=f"{_MAPF}.mo:MOMapfEnv",
    vector_entry_point=f"{_MAPF}.mo:MOMapfVectorEnv",
    max_episode_steps=128,
    kwargs={
        "generator": "mapf/obstacles",
        "generator_kwargs": {"height": 16, "width": 16, "num_agents": 8, "density": 0.2},
    },
    description="Grid MAPF with per-agent vector rewards: arrival vs energy (moves) vs waiting (steps not moving).",
    baseline=f"{_MAPF}.baseline:PrioritizedPlanningPolicy",
    scenario_sets=("multiagent/mapf",),
    outcome_bounds=f"{_MAPF}.bounds:mo_bounds",
)

_PANDA = "benchmarkzoo.envs.robotics.panda"

register_generator("panda/reach", f"{_PANDA}.generator:ReachGenerator")
register_generator("panda/push", f"{_PANDA}.generator:PushGenerator")
register_generator("panda/pick_and_place", f"{_PANDA}.generator:PickAndPlaceGenerator")
register_generator("panda/slide", f"{_PANDA}.generator:SlideGenerator")
register_generator("panda/stack", f"{_PANDA}.generator:StackGenerator")

for _task, _generator, _set, _what, _steps in (
    ("Reach", "panda/reach", "robotics/panda-reach", "Move a Franka Panda's end effector to a goal (PyBullet).", 50),
    (
        "Push",
        "panda/push",
        "robotics/panda-push",
        "Push a cube of random size, mass and friction to a goal with a Franka Panda (PyBullet).",
        50,
    ),
    (
        "Slide",
        "panda/slide",
        "robotics/panda-slide",
        "Strike a slippery cube so it slides to a goal beyond the arm's reach with a Franka Panda (PyBullet).",
        50,
    ),
    (
        "PickAndPlace",
        "panda/pick_and_place",
        "robotics/panda-pick-and-place",
        "Pick up a cube of random size, mass and friction and place it at a goal, on the table or in the air, "
        "with a Franka Panda (PyBullet).",
        50,
    ),
    (
        "Stack",
        "panda/stack",
        "robotics/panda-stack",
        "Stack two cubes of random size, mass and friction on a goal with a Franka Panda (PyBullet).",
        100,
    ),
):
    for _reward in ("sparse", "dense"):
        register(
            f"benchmarkzoo/Panda{_task}{'-Dense' if _reward == 'dense' else ''}-v0",
            kind="single",
            family="robotics",
            entry_point=f"{_PANDA}.env:PandaEnv",
            vector_entry_point=f"{_PANDA}.vector_env:PandaVectorEnv",
            max_episode_steps=_steps,
            kwargs={"generator": _generator, "generator_kwargs": {}, "reward_type": _reward},
            extras=("robotics",),
            description=_what if _reward == "sparse" else _what.replace(" (PyBullet)", ", dense reward (PyBullet)"),
            baseline=f"{_PANDA}.baseline:PandaExpert",
            scenario_sets=(_set,),
            outcome_bounds=f"{_PANDA}.bounds:bounds",
        )

# Joint control (seven joint position changes, and the gripper where it is free); the baseline turns
# the scripted experts' end-effector plans into joint moves by inverse kinematics.
for _task, _generator, _set in (
    ("Reach", "panda/reach", "robotics/panda-reach"),
    ("PickAndPlace", "panda/pick_and_place", "robotics/panda-pick-and-place"),
):
    register(
        f"benchmarkzoo/Panda{_task}Joints-v0",
        kind="single",
        family="robotics",
        entry_point=f"{_PANDA}.env:PandaEnv",
        vector_entry_point=f"{_PANDA}.vector_env:PandaVectorEnv",
        max_episode_steps=50,
        kwargs={"generator": _generator, "generator_kwargs": {}, "reward_type": "sparse", "control": "joints"},
        extras=("robotics",),
        description=f"Panda{_task}-v0 with joint control: seven joint position changes"
        + (" and the gripper" if _task == "PickAndPlace" else "")
        + " (PyBullet).",
        baseline=f"{_PANDA}.baseline:PandaExpert",
        scenario_sets=(_set,),
        outcome_bounds=f"{_PANDA}.bounds:bounds",
    )

_TRAFFIC = "benchmarkzoo.envs.traffic"

register_generator("traffic/single-intersection", f"{_TRAFFIC}.generators.grid:SingleIntersectionGenerator")
register_generator("traffic/grid", f"{_TRAFFIC}.generators.grid:GridGenerator")
register_generator("traffic/spider", f"{_TRAFFIC}.generators.spider:SpiderGenerator")
register_generator("traffic/random", f"{_TRAFFIC}.generators.random_network:RandomNetworkGenerator")

register(
    "benchmarkzoo/TrafficSignal-v0",
    kind="single",
    family="traffic",
    entry_point=f"{_TRAFFIC}.signal.env:TrafficSignalEnv",
    vector_entry_point=f"{_TRAFFIC}.signal.vector_env:TrafficSignalVectorEnv",
    max_episode_steps=360,
    kwargs={"generator": "traffic/single-intersection", "generator_kwargs": {}},
    extras=("traffic",),
    description="Choose the green phase of one signalized intersection simulated by SUMO, with min green and yellow.",
    baseline=f"{_TRAFFIC}.signal.baseline:MaxPressurePolicy",
    scenario_sets=("traffic/single-intersection",),
    outcome_bounds=f"{_TRAFFIC}.bounds:signal_bounds",
)
register(
    "benchmarkzoo/TrafficGrid-v0",
    kind="parallel",
    family="traffic",
    entry_point=f"{_TRAFFIC}.grid.env:TrafficGridEnv",
    vector_entry_point=f"{_TRAFFIC}.grid.vector_env:TrafficGridVectorEnv",
    max_episode_steps=360,
    kwargs={"generator": "traffic/grid", "generator_kwargs": {}},
    extras=("traffic",),
    description="Coordinate the signals of a generated SUMO grid, spider or random network, one agent per signal.",
    baseline=f"{_TRAFFIC}.grid.baseline:MaxPressurePolicy",
    scenario_sets=("traffic/grid", "traffic/spider", "traffic/random-network"),
    outcome_bounds=f"{_TRAFFIC}.bounds:grid_bounds",
)
register_generator("traffic/routing", f"{_TRAFFIC}.routing.generator:RoutingGenerator")
register(
    "benchmarkzoo/Routing-v0",
    kind="parallel",
    family="traffic",
    entry_point=f"{_TRAFFIC}.routing.env:RoutingEnv",
    vector_entry_point=f"{_TRAFFIC}.routing.vector_env:RoutingVectorEnv",
    kwargs={"generator": "traffic/routing", "generator_kwargs": {}},
    extras=("traffic",),
    description="Connected autonomous vehicles choose among k routes at departure on a SUMO grid among human drivers.",
    baseline=f"{_TRAFFIC}.routing.baseline:ShortestPathPolicy",
    scenario_sets=("traffic/routing",),
    outcome_bounds=f"{_TRAFFIC}.bounds:routing_bounds",
)
register(
    "benchmarkzoo/MO-TrafficSignal-v0",
    kind="mo",
    family="traffic",
    entry_point=f"{_TRAFFIC}.signal.mo_env:MOTrafficSignalEnv",
    vector_entry_point=f"{_TRAFFIC}.signal.mo_vector_env:MOTrafficSignalVectorEnv",
    max_episode_steps=360,
    kwargs={"generator": "traffic/single-intersection", "generator_kwargs": {}},
    extras=("traffic", "mo"),
    description="One SUMO signalized intersection with two objectives: vehicles' waiting time and their CO2.",
    baseline=f"{_TRAFFIC}.signal.baseline:MaxPressurePolicy",
    scenario_sets=("traffic/single-intersection",),
    outcome_bounds=f"{_TRAFFIC}.bounds:mo_signal_bounds",
)

register(
    "benchmarkzoo/MO-TrafficGrid-v0",
    kind="moma",
    family="traffic",
    entry_point=f"{_TRAFFIC}.grid.mo_env:MOTrafficGridEnv",
    vector_entry_point=f"{_TRAFFIC}.grid.mo_vector_env:MOTrafficGridVectorEnv",
    max_episode_steps=360,
    kwargs={"generator": "traffic/grid", "generator_kwargs": {}},
    extras=("traffic", "mo"),
    description="TrafficGrid-v0 with per-signal vector rewards: waiting time and CO2 on each signal's own lanes.",
    baseline=f"{_TRAFFIC}.grid.baseline:MaxPressurePolicy",
    scenario_sets=("traffic/grid",),
    outcome_bounds=f"{_TRAFFIC}.bounds:mo_grid_bounds",
)

register_generator("traffic/resco", f"{_TRAFFIC}.resco:RESCOGenerator")

# RESCO's real-world networks (Ault & Sharon 2021) with their demand hour: one env id per network.
for _network, _what in (
    ("cologne1", "one signal of Cologne, 7-8 am (TAPASCologne)"),
    ("cologne3", "three signals of Cologne, 7-8 am (TAPASCologne)"),
    ("cologne8", "eight signals of Cologne, 7-8 am (TAPASCologne)"),
    ("ingolstadt1", "one signal of Ingolstadt, 4-5 pm (InTAS)"),
    ("ingolstadt7", "seven signals of Ingolstadt, 4-5 pm (InTAS)"),
    ("ingolstadt21", "21 signals of Ingolstadt, 4-5 pm (InTAS)"),
    ("grid4x4", "RESCO's synthetic 4x4 grid, one hour"),
    ("arterial4x4", "RESCO's synthetic 4x4 arterial network, one hour"),
):
    register(
        f"benchmarkzoo/TrafficRESCO-{_network}-v0",
        kind="parallel",
        family="traffic",
        entry_point=f"{_TRAFFIC}.resco:TrafficRESCOEnv",
        vector_entry_point=f"{_TRAFFIC}.resco:TrafficRESCOVectorEnv",
        max_episode_steps=720,
        kwargs={"generator": "traffic/resco", "generator_kwargs": {"network": _network}},
        extras=("traffic",),
        description=f"RESCO real-world signal control: {_what}, one agent per signal.",
        baseline=f"{_TRAFFIC}.grid.baseline:MaxPressurePolicy",
        scenario_sets=(f"traffic/resco-{_network}",),
        outcome_bounds=f"{_TRAFFIC}.bounds:grid_bounds",
    )

_NAV = "benchmarkzoo.envs.multiagent.navigation"

register_generator("navigation/uniform", f"{_NAV}.generator:UniformGenerator")

register(
    "benchmarkzoo/Navigation-v0",
    kind="parallel",
    family="multiagent",
    entry_point=f"{_NAV}.env:NavigationEnv",
    vector_entry_point=f"{_NAV}.vector_env:NavigationVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "navigation/uniform", "generator_kwargs": {"num_agents": 4, "num_obstacles": 4}},
    description="Continuous multi-robot navigation among circular obstacles, holonomic or unicycle robots.",
    baseline=f"{_NAV}.baseline:PotentialFieldPolicy",
    scenario_sets=("multiagent/navigation",),
    outcome_bounds=f"{_NAV}.bounds:bounds",
)

register(
    "benchmarkzoo/MO-Navigation-v0",
    kind="moma",
    family="multiagent",
    entry_point=f"{_NAV}.env:MONavigationEnv",
    vector_entry_point=f"{_NAV}.vector_env:MONavigationVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "navigation/uniform", "generator_kwargs": {"num_agents": 4, "num_obstacles": 4}},
    description="Navigation-v0 with per-robot vector rewards: progress to the goal, energy, collisions.",
    baseline=f"{_NAV}.baseline:PotentialFieldPolicy",
    scenario_sets=("multiagent/mo-navigation",),
    outcome_bounds=f"{_NAV}.bounds:mo_bounds",
)

_FORAGING = "benchmarkzoo.envs.multiagent.foraging"

register_generator("foraging/random", f"{_FORAGING}.generator:ForagingGenerator")

_FORAGING_MAP = {"height": 8, "width": 8, "num_agents": 3, "num_food": 4, "max_agent_level": 3}
register(
    "benchmarkzoo/Foraging-v0",
    kind="parallel",
    family="multiagent",
    entry_point=f"{_FORAGING}.env:ForagingEnv",
    vector_entry_point=f"{_FORAGING}.vector_env:ForagingVectorEnv",
    max_episode_steps=50,
    kwargs={"generator": "foraging/random", "generator_kwargs": _FORAGING_MAP},
    description="Level-based foraging: agents with levels collect food that needs enough of them loading at once.",
    baseline=f"{_FORAGING}.baseline:GreedyForagingPolicy",
    scenario_sets=("multiagent/foraging",),
    outcome_bounds=f"{_FORAGING}.bounds:bounds",
)
register(
    "benchmarkzoo/MO-Foraging-v0",
    kind="moma",
    family="multiagent",
    entry_point=f"{_FORAGING}.env:MOForagingEnv",
    vector_entry_point=f"{_FORAGING}.vector_env:MOForagingVectorEnv",
    max_episode_steps=50,
    kwargs={"generator": "foraging/random", "generator_kwargs": {**_FORAGING_MAP, "num_food_types": 2}},
    description="Level-based foraging with one objective per food type (per-agent vector rewards).",
    baseline=f"{_FORAGING}.baseline:GreedyForagingPolicy",
    scenario_sets=("multiagent/mo-foraging",),
    outcome_bounds=f"{_FORAGING}.bounds:mo_bounds",
)
register(
    "benchmarkzoo/MO-Foraging-v1",
    kind="moma",
    family="multiagent",
    entry_point=f"{_FORAGING}.env:MOForagingV1Env",
    vector_entry_point=f"{_FORAGING}.vector_env:MOForagingV1VectorEnv",
    max_episode_steps=50,
    kwargs={"generator": "foraging/random", "generator_kwargs": {**_FORAGING_MAP, "num_food_types": 2}},
    description="MO-Foraging-v0 with float32 rewards (MOMAland's dtype): one objective per food type.",
    baseline=f"{_FORAGING}.baseline:GreedyForagingPolicy",
    scenario_sets=("multiagent/mo-foraging",),
    outcome_bounds=f"{_FORAGING}.bounds:mo_bounds",
)

_COMBAT = "benchmarkzoo.envs.multiagent.combat"

register_generator("combat/lineup", f"{_COMBAT}.generator:LineupGenerator")
register_generator("combat/random", f"{_COMBAT}.generator:RandomCombatGenerator")

register(
    "benchmarkzoo/MicroCombat-v0",
    kind="parallel",
    family="multiagent",
    entry_point=f"{_COMBAT}.env:MicroCombatEnv",
    vector_entry_point=f"{_COMBAT}.vector_env:MicroCombatVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "combat/random", "generator_kwargs": {"num_allies": 5, "num_enemies": 5}},
    description="StarCraft-micro style combat: units with health, range and cooldown against a scripted army.",
    baseline=f"{_COMBAT}.baseline:FocusFirePolicy",
    scenario_sets=("multiagent/micro-combat",),
    outcome_bounds=f"{_COMBAT}.bounds:bounds",
)
register(
    "benchmarkzoo/MO-MicroCombat-v0",
    kind="moma",
    family="multiagent",
    entry_point=f"{_COMBAT}.mo:MOMicroCombatEnv",
    vector_entry_point=f"{_COMBAT}.mo:MOMicroCombatVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "combat/random", "generator_kwargs": {"num_allies": 5, "num_enemies": 5}},
    description="MicroCombat-v0 with per-agent vector rewards: damage dealt (the team's) vs units kept (its own).",
    baseline=f"{_COMBAT}.baseline:FocusFirePolicy",
    scenario_sets=("multiagent/micro-combat",),
    outcome_bounds=f"{_COMBAT}.bounds:mo_bounds",
)

_BEACH = "benchmarkzoo.envs.multiagent.beach"

register_generator("beach/random", f"{_BEACH}.generator:BeachGenerator")

register(
    "benchmarkzoo/MO-Beach-v0",
    kind="moma",
    family="multiagent",
    entry_point=f"{_BEACH}.env:MOBeachEnv",
    vector_entry_point=f"{_BEACH}.vector_env:MOBeachVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "beach/random", "generator_kwargs": {}},
    description="The beach problem domain (MOMAland's mobeach): 100 agents on 6 sections, capacity vs mixture.",
    baseline=f"{_BEACH}.baseline:BestResponsePolicy",
    scenario_sets=("multiagent/mo-beach",),
    outcome_bounds=f"{_BEACH}.bounds:bounds",
)

_RPS = "benchmarkzoo.envs.multiagent.rps"

register_generator("rps/population", f"{_RPS}.generator:RPSPopulationGenerator")

register(
    "benchmarkzoo/RPSPopulation-v0",
    kind="single",
    family="multiagent",
    entry_point=f"{_RPS}.env:RPSPopulationEnv",
    vector_entry_point=f"{_RPS}.vector_env:RPSPopulationVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "rps/population", "generator_kwargs": {"max_noise": 0.1}},
    description="Repeated rock-paper-scissors against a population of 25 scripted bots (constant to adaptive).",
    baseline=f"{_RPS}.baseline:PatternMatchingPolicy",
    scenario_sets=("multiagent/rps-population",),
    outcome_bounds=f"{_RPS}.bounds:population_bounds",
)

register_generator("rps/self-play", f"{_RPS}.generator:RPSSelfPlayGenerator")

register(
    "benchmarkzoo/RPSSelfPlay-v0",
    kind="parallel",
    family="multiagent",
    entry_point=f"{_RPS}.env:RPSSelfPlayEnv",
    vector_entry_point=f"{_RPS}.vector_env:RPSSelfPlayVectorEnv",
    max_episode_steps=100,
    kwargs={"generator": "rps/self-play", "generator_kwargs": {"max_noise": 0.1}},
    description="Two-player repeated rock-paper-scissors for self-play: RPSPopulation's game, zero-sum.",
    baseline=f"{_RPS}.baseline:PatternMatchingPolicy",
    scenario_sets=("multiagent/rps-self-play",),
    outcome_bounds=f"{_RPS}.bounds:self_play_bounds",
)

_FIGHTING = "benchmarkzoo.envs.multiagent.fighting"

register_generator("fighting/duel", f"{_FIGHTING}.generator:FightingGenerator")

register(
    "benchmarkzoo/FightingDuel-v0",
    kind="parallel",
    family="multiagent",
    entry_point=f"{_FIGHTING}.env:FightingDuelEnv",
    vector_entry_point=f"{_FIGHTING}.vector_env:FightingDuelVectorEnv",
    max_episode_steps=400,
    kwargs={"generator": "fighting/duel"},
    description="A side-view two-player fighting game: three characters, frame data, high/low blocks, throws.",
    baseline=f"{_FIGHTING}.bots:BotPolicy",
    scenario_sets=("multiagent/fighting-duel", "multiagent/fighting-duel-bots"),
    outcome_bounds=f"{_FIGHTING}.bounds:bounds",
)

register_generator("fighting/ladder", f"{_FIGHTING}.generator:LadderGenerator")

register(
    "benchmarkzoo/FightingLadder-v0",
    kind="single",
    family="multiagent",
    entry_point=f"{_FIGHTING}.ladder_env:FightingLadderEnv",
    vector_entry_point=f"{_FIGHTING}.ladder_env:FightingLadderVectorEnv",
    max_episode_steps=4000,
    kwargs={"generator": "fighting/ladder"},
    description="FightingDuel's seat 0 up the ladder of ten scripted bots: win a match to face the next.",
    baseline=f"{_FIGHTING}.bots:BotPolicy",
    scenario_sets=("multiagent/fighting-ladder",),
    outcome_bounds=f"{_FIGHTING}.bounds:ladder_bounds",
)
