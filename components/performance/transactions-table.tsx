import Link from "next/link";
import { formatDuration } from "@/components/charts/types";
import type { TransactionSummaryRow } from "@/src/performance/queries";
import type { PerformanceListParams, PerformanceSort } from "@/src/performance/schemas";

const COLUMNS: { key: PerformanceSort; label: string; numeric: boolean }[] = [
  { key: "name", label: "Transaction", numeric: false },
  { key: "count", label: "Count", numeric: true },
  { key: "tpm", label: "TPM", numeric: true },
  { key: "p50", label: "p50", numeric: true },
  { key: "p75", label: "p75", numeric: true },
  { key: "p95", label: "p95", numeric: true },
  { key: "p99", label: "p99", numeric: true },
  { key: "failure_rate", label: "Failure rate", numeric: true },
];

export function formatRate(rate: number): string {
  return `${(rate * 100).toFixed(rate === 0 || rate >= 0.1 ? 1 : 2)}%`;
}

export function formatTpm(tpm: number): string {
  return tpm >= 100 ? String(Math.round(tpm)) : tpm.toFixed(2);
}

/** Transactions by name and project; every header sorts (again: the other way). */
export function TransactionsTable({
  rows,
  params,
  sortHref,
  summaryHref,
}: {
  rows: TransactionSummaryRow[];
  params: PerformanceListParams;
  sortHref: (sort: PerformanceSort, dir: "asc" | "desc") => string;
  summaryHref: (row: TransactionSummaryRow) => string;
}) {
  return (
    <table className="w-full text-left text-sm tabular-nums" aria-label="Transactions">
      <thead className="border-b border-line text-xs text-muted">
        <tr>
          {COLUMNS.map((c) => {
            const active = params.sort === c.key;
            const next = active
              ? params.dir === "desc"
                ? "asc"
                : "desc"
              : c.numeric
                ? "desc"
                : "asc";
            return (
              <th
                key={c.key}
                scope="col"
                className={`py-1 pr-3 font-medium ${c.numeric ? "text-right" : ""}`}
                aria-sort={active ? (params.dir === "asc" ? "ascending" : "descending") : undefined}
              >
                <Link href={sortHref(c.key, next)} className="text-muted hover:text-fg">
                  {c.label}
                  {active ? (params.dir === "asc" ? " ↑" : " ↓") : ""}
                </Link>
              </th>
            );
          })}
          <th scope="col" className="py-1 font-medium">
            Project
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr
            key={`${r.project_id}:${r.name}`}
            className="border-b border-line/60 hover:bg-surface"
            data-transaction={r.name}
          >
            <td className="max-w-[28rem] truncate py-1 pr-3" title={r.name}>
              <Link href={summaryHref(r)}>{r.name}</Link>
            </td>
            <td className="py-1 pr-3 text-right" data-col="count">
              {r.count}
            </td>
            <td className="py-1 pr-3 text-right" data-col="tpm">
              {formatTpm(r.tpm)}
            </td>
            {(["p50", "p75", "p95", "p99"] as const).map((p) => (
              <td key={p} className="py-1 pr-3 text-right" data-col={p}>
                {r[p] === null ? "–" : formatDuration(r[p])}
              </td>
            ))}
            <td
              className={`py-1 pr-3 text-right ${r.failure_rate > 0 ? "text-danger" : ""}`}
              data-col="failure_rate"
            >
              {formatRate(r.failure_rate)}
            </td>
            <td className="py-1 text-muted">{r.project}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
