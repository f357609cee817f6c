import { sql, type RawBuilder } from 'kysely';

// The SQL pieces that tie a statement to a job's claim (DESIGN 3): a claim is a lease, and every
// statement that ends a claimed job or writes one already claimed says whose claim it is, so a run
// whose claim was taken over (its lease expired, another process runs the job) changes nothing.

/** A run's claim on a job: the job, the process holding it, and which claim of the job this is. */
export interface JobFence {
  jobId: string;
  lockedBy: string;
  claim: number;
}

/**
 * A CTE named `name` (for a `WITH` statement) that ends the job a run has claimed, fenced on that
 * claim, when `when` holds, RETURNING 1: for a handler whose one statement reads what it needs
 * and, when that leaves nothing to do, also ends its job. No row returned: `when` did not hold,
 * or another process has taken the claim over (the runner's own fenced removal then says so).
 */
export function endClaimedJobCte(name: string, fence: JobFence, when: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${sql.raw(name)} AS (DELETE FROM jobs WHERE ${claimed(fence)} AND ${when} RETURNING 1)`;
}

/**
 * For a statement that ends many claimed jobs at once (each run's its own): the claims as rows of a
 * CTE named `name`, with columns (job_id, locked_by, claim), and `claimedBy(job, name)` the fence of
 * a `jobs` row aliased `job` on them.
 */
export function fencesCte(name: string, fences: Array<JobFence>): RawBuilder<unknown> {
  return sql`${sql.raw(name)} AS (
    SELECT * FROM unnest(${fences.map((f) => f.jobId)}::uuid[], ${fences.map((f) => f.lockedBy)}::text[], ${fences.map((f) => f.claim)}::int[])
      AS ${sql.raw(name)}(job_id, locked_by, claim))`;
}

/** The fence of a `jobs` row aliased `job` on the claims of the rows aliased `fences` (fencesCte's columns). */
export function claimedBy(job: string, fences: string): RawBuilder<unknown> {
  return sql.raw(`${job}.id = ${fences}.job_id AND ${job}.locked_by = ${fences}.locked_by AND ${job}.claims = ${fences}.claim`);
}

/** The fence of every statement that ends a claimed job: still this claim's (not taken over since). */
export function claimed(fence: JobFence): RawBuilder<unknown> {
  return sql`id = ${fence.jobId} AND locked_by = ${fence.lockedBy} AND claims = ${fence.claim}`;
}

/** The claim of jobs written already claimed by the process that will run them (`JobContext.claimFor`). */
export interface NewClaim {
  lockedBy: string;
  leaseMs: number;
}

/** `locked_by, locked_until, attempts, claims` of a job written claimed, as SQL values (for an INSERT's SELECT list). */
export function claimedJobColumns(claim: NewClaim): RawBuilder<unknown> {
  return sql`${claim.lockedBy}::text, now() + make_interval(secs => ${claim.leaseMs / 1000}), 1, 1`;
}
