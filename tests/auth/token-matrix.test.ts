import { tokenMatrixSuite } from "./token-matrix";

tokenMatrixSuite("SQLite", async () => ({}));
