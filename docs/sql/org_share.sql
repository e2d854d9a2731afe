-- How much of each repository AI wrote, and how sure: one row per repository, the first question an
-- organisation asks. Lines by kind as `intent stats` counts them, and the AI's lines by confidence.
-- Runs on DuckDB and Spark SQL alike.
SELECT
  repo,
  SUM(end_line - start_line + 1) AS total,
  SUM(CASE WHEN kind = 'ai' THEN end_line - start_line + 1 ELSE 0 END) AS ai,
  SUM(CASE WHEN kind = 'human' THEN end_line - start_line + 1 ELSE 0 END) AS human,
  SUM(CASE WHEN kind = 'mixed' THEN end_line - start_line + 1 ELSE 0 END) AS mixed,
  SUM(CASE WHEN kind = 'unknown' THEN end_line - start_line + 1 ELSE 0 END) AS unknown,
  SUM(CASE WHEN kind = 'untraced' THEN end_line - start_line + 1 ELSE 0 END) AS untraced,
  SUM(CASE WHEN kind = 'before_adoption' THEN end_line - start_line + 1 ELSE 0 END) AS before_adoption,
  SUM(CASE WHEN out_of_scope THEN end_line - start_line + 1 ELSE 0 END) AS out_of_scope,
  SUM(CASE WHEN kind = 'ai' AND confidence = 'exact' THEN end_line - start_line + 1 ELSE 0 END) AS ai_exact,
  SUM(CASE WHEN kind = 'ai' AND confidence = 'replayed' THEN end_line - start_line + 1 ELSE 0 END) AS ai_replayed,
  SUM(CASE WHEN kind = 'ai' AND confidence = 'moved' THEN end_line - start_line + 1 ELSE 0 END) AS ai_moved,
  SUM(CASE WHEN kind = 'ai' AND confidence = 'inferred' THEN end_line - start_line + 1 ELSE 0 END) AS ai_inferred
FROM lines
GROUP BY repo
ORDER BY repo
