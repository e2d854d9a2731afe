-- Which models wrote the code each repository holds today: lines by repository and model id.
-- Runs on DuckDB and Spark SQL alike.
SELECT repo, model, SUM(end_line - start_line + 1) AS lines
FROM lines
WHERE kind IN ('ai', 'mixed')
GROUP BY repo, model
ORDER BY repo, lines DESC, model
