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
write_json([H|T]) :- !,
    write('['), write_json(H), forall(member(X, T), (write(','), write_json(X))), write(']').
write_json(X) :- atomic(X), !, write_string(X).
write_json(X) :-
    format(string(S), "~q", [X]), write_string(S).

write_pairs([]).
write_pairs([K-V|T]) :-
    write_string(K), write(':'), write_json(V),
    forall(member(K2-V2, T), (write(','), write_string(K2), write(':'), write_json(V2))).

write_string(X) :-
    atom_string(X, S),
    \+ sub_string(S, _, _, _, "\""),
    \+ sub_string(S, _, _, _, "\\"),
    !,
    put_char('"'), write(S), put_char('"').
write_string(X) :-
    atom_codes(X, Codes),
    put_char('"'), maplist(put_json_code, Codes), put_char('"').

put_json_code(0'") :- !, write('\\"').
put_json_code(0'\\) :- !, write('\\\\').
put_json_code(C) :- put_code(C).
