// Every dish pair (key, base, target), in key order.
// params: (none)
MATCH (p:DishPair)
RETURN p.key AS pair, p.base AS base, p.target AS target
ORDER BY pair
