/*  The rat race (the PPCG rat-race challenge): the numbers of the challenge's "Gory Details".

    The controller (learners/race/) reads these facts once through the
    bridge; edit them to race a variant (a longer track, more colours of
    walls, ...).  Names are the controller's; values the specification's.

        ?- race_spec(Spec).
*/
:- module(race, [spec/2, race_spec/1]).

%!  spec(?Name, ?Value) is nondet.
spec(width, 53).               % cells stored across: the track x = 0..48, goals x >= 49
spec(height, 15).              % cells down, y = 0..14
spec(goal_x, 49).              % cells with x >= goal_x are goal cells
spec(colours, 16).             % colours 0..15; out of bounds shows as -1
spec(empty_colours, 8).
spec(teleporter_colours, 4).   % two drawn offsets and their negations
spec(teleport_range, 4).       % teleporter offsets in the 9x9 neighbourhood, not (0,0)
spec(trap_colours, 2).         % each marks one of the 9 cells of its 3x3 as deadly
spec(wall_colours, 2).         % the rest: walls (deadly, and moving into one stays put)
spec(view_radius, 2).          % a specimen sees 5x5
spec(start_specimens, 15).
spec(children_per_turn, 10).
spec(genome_bits, 100).
spec(max_age, 100).            % turns a specimen lives (reaching the goal resets it)
spec(turns, 10000).
spec(crossover_switch, 0.05).  % chance to switch parent after each bit
spec(mutation, 0.01).          % chance each bit flips
spec(goal_fitness, 50).        % fitness = 1 + x + goal_fitness * goals
spec(min_start_rows, 10).      % regenerate the track until this many rows of x = 0 reach a goal
spec(start_reach, 100).        % ... within this many moves

%!  race_spec(-Pairs:list) is det.
%   Every spec/2 fact as [Name, Value], for the bridge.
race_spec(Pairs) :-
    findall([N, V], spec(N, V), Pairs).
