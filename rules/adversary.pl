/*  An adversary for measuring learners: the chooser adversary(Victim)
    picks, in every position, the moves that give it the highest chance of
    winning against Victim's current choices (Victim picking uniformly among
    its candidate moves), computed by a search of the game tree from the
    position.

    The search remembers every state's chance (memo/4), so a game searches
    each state once, and later games only what changed.  It records which
    state each move leads to (kid/3: so which states each chance was
    computed from) and, in the states where Victim moves, the candidates it
    saw (victim_choice/3).  A learner
    that changes Victim's values says so with play:values_changed/4; the
    states whose chance used the changed state are then checked, and a
    state whose victim's candidates are no longer the ones seen has its
    chance computed again from its children's; when that changes the
    chance, the states that used it are computed again in turn, and so on
    up, stopping wherever a chance comes out the same; a state computed
    again reuses the victim's candidates already asked for.  (Forgetting
    every state above instead, as first written, made boxes(2,2) cost
    232 ms a game over 200 games: there a state's ancestors are nearly all
    earlier states; 33 ms with this scheme and kid/3, and 7 ms over 1,000
    games once the punish agent remembers each state's successors.)  The
    same values give the same choices as a search without memory.

        ?- play_game(hexapawn, [white-adversary(agent(a)), black-agent(a)], R, _, M).
*/
:- module(adversary, [win_chance/6, adversary_forget/0]).
:- use_module(game).
:- use_module(play).

:- dynamic memo/4.            % memo(State, Me, P, Game-Victim-Pos-ToMove): the chance below for a state hash
:- dynamic kid/3.             % kid(State, Move, Child): Move leads to Child, whose chance State's used
:- dynamic victim_choice/3.   % victim_choice(State, Game-Victim-Pos-Mover, Moves): what the victim chose among

play:candidates(adversary(Victim), Game, Pos, Mover, Moves) :-
    !,
    findall(W-M, ( legal(Game, Pos, Mover, M), step(Game, Pos, Mover, M, P1, Next),
                   win_chance(Game, P1, Next, Mover, Victim, W) ), Scored),
    max_member(Best-_, Scored),
    findall(M, ( member(W-M, Scored), W >= Best - 1.0e-12 ), Moves).

%!  win_chance(+Game, +Pos, +ToMove, +Me, +Victim, -P:float) is det.
%   Probability that Me wins from the state when Me plays best and Victim
%   picks uniformly among its candidates (remembered; see above).
win_chance(Game, Pos, ToMove, Me, Victim, P) :-
    state_hash(Game, Victim, Pos, ToMove, H),
    remembered(H, Game, Pos, ToMove, Me, Victim, P).

remembered(H, Game, Pos, ToMove, Me, Victim, P) :-
    (   memo(H, Me, P0, _)
    ->  P = P0
    ;   chance(Game, Pos, ToMove, Me, Victim, H, P),
        assertz(memo(H, Me, P, Game-Victim-Pos-ToMove))
    ).

chance(Game, Pos, ToMove, Me, Victim, H, P) :-
    (   over(Game, Pos, ToMove, R)
    ->  ( R == Me -> P = 1.0 ; P = 0.0 )
    ;   ToMove == Me
    ->  aggregate_all(max(W), ( legal(Game, Pos, ToMove, M), child(Game, Pos, ToMove, M, Me, Victim, H, W) ), P)
    ;   victim_moves(H, Game, Victim, Pos, ToMove, Ms),
        findall(W, ( member(M, Ms), child(Game, Pos, ToMove, M, Me, Victim, H, W) ), Ws),
        sum_list(Ws, Sum), length(Ws, N),
        P is Sum / N
    ).

%   The victim's candidates in state H: those it was last seen choosing
%   among (recheck/1 keeps them current), asked for the first time.
victim_moves(H, Game, Victim, Pos, ToMove, Ms) :-
    (   victim_choice(H, _, Seen)
    ->  Ms = Seen
    ;   candidates(Victim, Game, Pos, ToMove, Ms),
        assertz(victim_choice(H, Game-Victim-Pos-ToMove, Ms))
    ).

%   The chance after move M, recording which state M leads to (kid/3): so
%   that state H's chance used it, and computing H again needs no step.
child(Game, Pos, ToMove, M, Me, Victim, H, W) :-
    (   kid(H, M, C), memo(C, Me, W0, _)
    ->  W = W0
    ;   step(Game, Pos, ToMove, M, P1, Next),
        state_hash(Game, Victim, P1, Next, C),
        remembered(C, Game, P1, Next, Me, Victim, W),
        (   kid(H, M, C) -> true ; assertz(kid(H, M, C)) )
    ).

state_hash(Game, Victim, Pos, ToMove, H) :-
    variant_sha1(s(Game, Victim, Pos, ToMove), H).

%!  play:values_changed(+Chooser, +Game, ?Pos, ?Mover) is det.
%   Chooser's values for the state Pos/Mover (and its symmetric images)
%   changed; unbound Pos: all of Chooser's values changed.
play:values_changed(Victim, Game, Pos, Mover) :-
    (   var(Pos)
    ->  adversary_forget
    ;   forall(( image(Game, Pos, P1), state_hash(Game, Victim, P1, Mover, C), kid(Parent, _, C) ),
               recheck(Parent))
    ).

%   A state whose chance used the changed one: compute it again if the
%   victim's candidates there are not the ones its chance was computed with
%   (states where Me moves do not depend on the victim's values directly).
recheck(H) :-
    (   victim_choice(H, Info, Seen)
    ->  Info = Game-Victim-Pos-Mover,
        candidates(Victim, Game, Pos, Mover, Now),
        (   Now == Seen
        ->  true
        ;   retractall(victim_choice(H, _, _)),
            assertz(victim_choice(H, Info, Now)),
            refresh(H)
        )
    ;   true
    ).

%   State H's chance computed again from its children's remembered ones;
%   if it changed, the states that used it are refreshed too.
refresh(H) :-
    forall(memo(H, Me, Old, Game-Victim-Pos-ToMove),
           (   chance(Game, Pos, ToMove, Me, Victim, H, New),
               (   New =:= Old
               ->  true
               ;   retractall(memo(H, Me, _, _)),
                   assertz(memo(H, Me, New, Game-Victim-Pos-ToMove)),
                   forall(kid(Parent, _, H), refresh(Parent))
               )
           )).

%!  adversary_forget is det.
%   Forget every remembered chance (when a victim's values are replaced).
adversary_forget :-
    retractall(memo(_, _, _, _)),
    retractall(kid(_, _, _)),
    retractall(victim_choice(_, _, _)).
