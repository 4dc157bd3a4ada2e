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
write_json(X) :- number(X), !,
    (   json_number(X) -> write(X) ; format('"~w"', [X]) ).   % inf, nan, 1r3: not JSON numbers
write_json(null) :- !, write(null).
write_json(true) :- !, write(true).
write_json(false) :- !, write(false).
write_json([]) :- !, write('[]').
write_json(json(Pairs)) :- !,
    write('{'), write_pairs(Pairs), write('}').
write_json(L) :-                        % a flat list of numbers or plain atoms: one concatenation
    L = [H|_],
    (   number(H)
    ->  maplist(json_number, L),
        atomic_list_concat(L, ',', A), format('[~w]', [A])
    ;   atom(H),
        maplist(word, L),
        atomic_list_concat(L, '\u0001', Joined),     % one scan for characters that need escaping
        \+ sub_atom(Joined, _, _, _, '"'),
        \+ sub_atom(Joined, _, _, _, '\\'),
        \+ sub_atom(Joined, _, _, _, '\x0\')
    ->  atomic_list_concat(L, '","', A), format('["~w"]', [A])
    ),
    !.
write_json([H|T]) :- !,
    write('['), write_json(H), write_rest(T), write(']').
write_json(X) :- atomic(X), !, write_string(X).
write_json(X) :-
    format(string(S), "~q", [X]), write_string(S).

%   A number JSON can hold: an integer or a finite float.
json_number(X) :- integer(X), !.
json_number(X) :- float(X), X =:= X, X =\= inf, X =\= -inf.

%   An atom written as a JSON string (not one of JSON's literals).
word(X) :- atom(X), X \== null, X \== true, X \== false.

write_rest([]).
write_rest([X|T]) :- write(','), write_json(X), write_rest(T).

write_pairs([]).
write_pairs([K-V|T]) :-
    write_string(K), write(':'), write_json(V),
    (   T == [] -> true ; write(','), write_pairs(T) ).

write_string(X) :-
    \+ sub_atom(X, _, _, _, '"'),
    \+ sub_atom(X, _, _, _, '\\'),
    \+ sub_atom(X, _, _, _, '\x0\'),              % NUL would end the text on its way to Python
    !,
    format('"~w"', [X]).
write_string(X) :-
    atom_codes(X, Codes),
    put_char('"'), maplist(put_json_code, Codes), put_char('"').

put_json_code(0'") :- !, write('\\"').
put_json_code(0'\\) :- !, write('\\\\').
put_json_code(0) :- !, write('\\u0000').
put_json_code(C) :- put_code(C).
