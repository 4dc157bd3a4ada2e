/*  A small JSON writer for the bridge: lists become arrays, numbers stay
    numbers, atoms and strings become strings (`null`, `true`, `false` as in
    JSON), json(Key-Value list) becomes an object.  Python reads the text with
    json.loads(strict=False), which is far faster than pyswip's term
    conversion; only '"' and '\\' are escaped, control characters pass raw.
*/
:- module(json_out, [json_text/2]).

%!  json_text(+Term, -Text:string) is det.
json_text(Term, Text) :-
    with_output_to(string(Text), write_json(Term)).

write_json(X) :- var(X), !, throw(error(instantiation_error, json_text/2)).
write_json(X) :- number(X), !, write(X).
write_json(null) :- !, write(null).
write_json(true) :- !, write(true).
write_json(false) :- !, write(false).
write_json([]) :- !, write('[]').
write_json(json(Pairs)) :- !,
    write('{'), write_pairs(Pairs), write('}').
write_json(L) :-                        % a flat list of numbers or plain atoms: one concatenation
    L = [_|_],
    flat_list(L, Kind),
    !,
    (   Kind == number
    ->  atomic_list_concat(L, ',', A), format('[~w]', [A])
    ;   atomic_list_concat(L, '","', A), format('["~w"]', [A])
    ).
write_json([H|T]) :- !,
    write('['), write_json(H), write_rest(T), write(']').
write_json(X) :- atomic(X), !, write_string(X).
write_json(X) :-
    format(string(S), "~q", [X]), write_string(S).

%   number when every element is a number; atom when every element is an atom
%   that is not a JSON literal and holds no character that needs escaping.
flat_list([H|T], Kind) :-
    (   number(H)
    ->  Kind = number, maplist(number, T)
    ;   plain_atom(H)
    ->  Kind = atom, maplist(plain_atom, T)
    ).

plain_atom(X) :-
    atom(X),
    X \== null, X \== true, X \== false,
    \+ sub_atom(X, _, _, _, '"'),
    \+ sub_atom(X, _, _, _, '\\').

write_rest([]).
write_rest([X|T]) :- write(','), write_json(X), write_rest(T).

write_pairs([]).
write_pairs([K-V|T]) :-
    write_string(K), write(':'), write_json(V),
    (   T == [] -> true ; write(','), write_pairs(T) ).

write_string(X) :-
    \+ sub_atom(X, _, _, _, '"'),
    \+ sub_atom(X, _, _, _, '\\'),
    !,
    format('"~w"', [X]).
write_string(X) :-
    atom_codes(X, Codes),
    put_char('"'), maplist(put_json_code, Codes), put_char('"').

put_json_code(0'") :- !, write('\\"').
put_json_code(0'\\) :- !, write('\\\\').
put_json_code(C) :- put_code(C).
