-- The runs of lines written outside their intent's scope, in order: `intent org stats` joins the runs of
-- one record that follow each other into the blocks `intent stats` lists (docs/INSIGHT.md).
-- Runs on DuckDB and Spark SQL alike.
SELECT repo, path, start_line, end_line, kind, intent, model, person, record_id, written_at, confidence
FROM lines
WHERE out_of_scope
ORDER BY repo, path, start_line
