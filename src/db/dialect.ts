import {
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

// Kysely's PostgreSQL introspector (used by its Migrator on every run) reads every table of every
// schema and calls name-based functions on each (`has_schema_privilege(nspname, …)`,
// `pg_get_serial_sequence('schema.table', …)`). When another client drops a schema while that query
// runs, the catalog snapshot still lists the schema but the name lookup fails, and the migration
// aborts with `schema "<someone else's schema>" does not exist`. That happened in CI, where test
// workers create and drop schemas in parallel, and it can happen on any shared server. This
// introspector sees only the schemas on our search_path, which nobody else drops under us.

interface ColumnRow {
  column: string;
  not_null: boolean;
  has_default: boolean;
  table: string;
  table_type: string;
  schema: string;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
}

export class SearchPathIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`SELECT nspname AS name FROM pg_catalog.pg_namespace`.execute(this.db);
    return rows.map((r) => ({ name: r.name }));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      SELECT a.attname AS column, a.attnotnull AS not_null, a.atthasdef AS has_default,
             c.relname AS table, c.relkind AS table_type, ns.nspname AS schema,
             typ.typname AS type, dtns.nspname AS type_schema,
             col_description(a.attrelid, a.attnum) AS column_description,
             pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname) AS auto_incrementing
        FROM pg_catalog.pg_attribute a
        JOIN pg_catalog.pg_class c ON a.attrelid = c.oid
        JOIN pg_catalog.pg_namespace ns ON c.relnamespace = ns.oid
        JOIN pg_catalog.pg_type typ ON a.atttypid = typ.oid
        JOIN pg_catalog.pg_namespace dtns ON typ.typnamespace = dtns.oid
       WHERE c.relkind IN ('r', 'v', 'p')
         AND ns.nspname = ANY (current_schemas(false))
         AND a.attnum >= 0
         AND NOT a.attisdropped
         AND (${options.withInternalKyselyTables === true} OR c.relname NOT IN ('kysely_migration', 'kysely_migration_lock'))
       ORDER BY ns.nspname, c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of rows) {
      const key = `${row.schema}.${row.table}`;
      let table = tables.get(key);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.table_type === 'v', columns: [] };
        tables.set(key, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing !== null,
        hasDefaultValue: row.has_default,
        comment: row.column_description ?? undefined,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

export class SearchPathPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SearchPathIntrospector(db);
  }
}
