-- Who wrote how much, month by month: the lines the ledger's records claim, by contributor type and model.
-- Runs on DuckDB and Spark SQL alike (date_trunc takes the unit first on both).
SELECT
  contributor,
  model,
  date_trunc('month', timestamp) AS month,
  SUM(lines) AS lines,
  COUNT(*) AS records
FROM records
GROUP BY contributor, model, date_trunc('month', timestamp)
ORDER BY month, contributor, model
