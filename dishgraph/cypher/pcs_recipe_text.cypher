// One recipe's text and dish (the input of the PCS baseline table).
// params: $id
MATCH (x:Recipe {id: $id})
RETURN x.id AS id, x.dish AS dish, x.text AS text, x.source AS source
