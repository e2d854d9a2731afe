-- The intents each repository completed, with whether their acceptance criteria were verified and who
-- confirmed: the last move of each intent to COMPLETE.
-- Runs on DuckDB and Spark SQL alike.
SELECT repo, intent, timestamp AS completed_at, verification, confirmed_by
FROM (
  SELECT repo, intent, timestamp, verification, confirmed_by,
         ROW_NUMBER() OVER (PARTITION BY repo, intent ORDER BY timestamp DESC) AS newest
  FROM lifecycle
  WHERE to_status = 'COMPLETE'
) moves
WHERE newest = 1
ORDER BY repo, intent
