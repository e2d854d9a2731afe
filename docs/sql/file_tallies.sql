-- Each file's lines by what `intent stats` counts them under (docs/EXPORT.md, docs/INSIGHT.md): the kind of
-- writer, the scope, the intent, the model, the person and how sure the owner is. `intent org stats` feeds
-- these sums to the same counting code as `intent stats`, so both give the same numbers.
-- Runs on DuckDB and Spark SQL alike; `lines` is the export's `lines` table (every repository's
-- partition), `${lines}` in the CLI.
SELECT
  repo,
  path,
  kind,
  out_of_scope,
  intent,
  model,
  person,
  confidence,
  SUM(end_line - start_line + 1) AS line_count
FROM lines
GROUP BY repo, path, kind, out_of_scope, intent, model, person, confidence
ORDER BY repo, path
