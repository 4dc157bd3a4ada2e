/*  A small JSON writer for the bridge: lists become arrays, numbers stay
    numbers, atoms and strings become strings (`null`, `true`, `false` as in
    JSON), json(Key-Value list) becomes an object.  Python reads the text with
    json.loads(strict=False), which is far faster than pyswip's term
    conversion; only '"' and '\\' are escaped, control characters pass raw.
*/
:- module(json_out, [json_text/2]).

%!  json_text(+Term, -Text:string) is det.
%   The JSON text of Term: its pieces listed, then joined in one call (no
%   stream is opened, no character written one at a time).
json_text(Term, Text) :-
    json_parts(Term, Parts, []),
    atomics_to_string(Parts, Text).

json_parts(X, _, _) :- var(X), !, throw(error(instantiation_error, json_text/2)).
json_parts(X, [P|T], T) :- number(X), !,
    (   json_number(X) -> P = X ; format(string(P), '"~w"', [X]) ).   % inf, nan, 1r3: not JSON numbers
json_parts(null, [null|T], T) :- !.
json_parts(true, [true|T], T) :- !.
json_parts(false, [false|T], T) :- !.
json_parts([], ['[]'|T], T) :- !.
json_parts(json(Pairs), ['{'|P], T) :- !,
    pair_parts(Pairs, P, ['}'|T]).
json_parts([H|R], ['['|P], T) :- !,
    json_parts(H, P, P1),
    rest_parts(R, P1, [']'|T]).
json_parts(X, P, T) :- atomic(X), !,
    string_parts(X, P, T).
json_parts(X, P, T) :-
    format(string(S), "~q", [X]),
    string_parts(S, P, T).

rest_parts([], T, T).
rest_parts([X|Xs], [','|P], T) :-
    json_parts(X, P, P1),
    rest_parts(Xs, P1, T).

pair_parts([], T, T).
pair_parts([K-V|Ps], P, T) :-
    string_parts(K, P, [':'|P1]),
    json_parts(V, P1, P2),
    (   Ps == [] -> P2 = T ; P2 = [','|P3], pair_parts(Ps, P3, T) ).

%   An atom or string as a JSON string: as it is, unless it holds '"', '\\'
%   or NUL (which would end the text on its way to Python).
string_parts(X, ['"', X, '"'|T], T) :-
    \+ sub_atom(X, _, _, _, '"'),
    \+ sub_atom(X, _, _, _, '\\'),
    \+ sub_atom(X, _, _, _, '\x0\'),
    !.
string_parts(X, ['"', Escaped, '"'|T], T) :-
    atom_codes(X, Codes),
    phrase(escaped(Codes), Out),
    string_codes(Escaped, Out).

escaped([]) --> [].
escaped([C|Cs]) --> escaped_code(C), escaped(Cs).

escaped_code(0'") --> !, "\\\"".
escaped_code(0'\\) --> !, "\\\\".
escaped_code(0) --> !, "\\u0000".
escaped_code(C) --> [C].

%   A number JSON can hold: an integer or a finite float.
json_number(X) :- integer(X), !.
json_number(X) :- float(X), X =:= X, X =\= inf, X =\= -inf.

