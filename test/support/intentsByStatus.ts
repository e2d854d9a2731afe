/** A catalogue with one intent in each lifecycle status, for tests of what each door allows and advises. */
export const INTENTS_BY_STATUS = `active_intents:
  - id: INT-001
    name: Pending work
    status: PENDING
    owned_scope: ["a/**"]
  - id: INT-002
    name: Work in progress
    status: IN_PROGRESS
    owned_scope: ["b/**"]
  - id: INT-003
    name: Finished work
    status: COMPLETE
    owned_scope: ["c/**"]
  - id: INT-004
    name: Blocked work
    status: BLOCKED
    owned_scope: ["d/**"]
  - id: INT-005
    name: Archived work
    status: ARCHIVED
    owned_scope: ["e/**"]
`;

/** The intent of each status in `INTENTS_BY_STATUS`, and an id it does not declare. */
export const ID_BY_STATUS = {
  PENDING: "INT-001",
  IN_PROGRESS: "INT-002",
  COMPLETE: "INT-003",
  BLOCKED: "INT-004",
  ARCHIVED: "INT-005",
  unknown: "INT-999",
} as const;
