/** The protocol client lives in scripts/ (the demo and the benchmark drive the server with it too). */
export * from "../../scripts/lspClient";
