package io.fleetwave.controlplane.mig.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.facts.AppliedFacts;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.facts.FactBackfill;
import io.fleetwave.core.mig.MigConfig;
import io.fleetwave.core.mig.MigConfigFile;
import io.fleetwave.core.mig.MigConfigImporter;
import io.fleetwave.core.mig.MigConfigRegistry;
import io.fleetwave.core.mig.MigConfigWriter;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.MigConfigsImported;
import io.fleetwave.events.gpu.GpuCatalog;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The imported MIG configs in PostgreSQL (table {@code mig_configs}), a projection of the {@link
 * MigConfigsImported} facts on fleet.control-facts. A file is checked whole before anything is
 * written ({@link MigConfigImporter} throws on the first bad file), recorded as a fact, then all
 * its configs are stored in one transaction; a name that exists is replaced.
 */
@ApplicationScoped
public class MigConfigStore {
  private static final TypeReference<List<MigEntryView>> ENTRIES = new TypeReference<>() {};
  private static final String COLUMNS =
      "name, yaml, definition::text AS definition, source, imported_at";

  private final Pool pool;
  private final MigConfigImporter importer;
  private final ObjectMapper json;
  private final ControlFactLog facts;

  public MigConfigStore(Pool pool, GpuCatalog catalog, ObjectMapper json, ControlFactLog facts) {
    this.pool = pool;
    this.facts = facts;
    this.importer = new MigConfigImporter(catalog);
    this.json = json;
  }

  /**
   * Imports a mig-parted file: its fact on fleet.control-facts first (acknowledged), then its
   * configs, in one transaction under the store's lock, so the log and the table see imports in the
   * same order.
   *
   * @throws io.fleetwave.core.mig.MigConfigException when the file is refused (nothing is stored)
   * @throws io.fleetwave.controlplane.facts.FactNotRecordedException (failed Uni) when Kafka does
   *     not take the fact (nothing is stored)
   */
  public Uni<MigConfigImport> importFile(String yaml, String source) {
    MigConfigFile file = importer.importFile(yaml);
    List<MigConfig> configs = List.copyOf(file.configs().values());
    Instant at = Instant.now();
    MigConfigsImported imported = new MigConfigsImported(yaml, source, at);
    return Connections.withTransaction(
            pool,
            tx ->
                lock(tx)
                    .chain(() -> facts.append(MigConfigsImported.SUBJECT, imported, at))
                    .chain(fact -> AppliedFacts.first(tx, fact.id()))
                    .chain(first -> store(tx, configs, imported)))
        .map(
            replaced ->
                new MigConfigImport(
                    configs.stream().map(MigConfig::name).toList(),
                    replaced,
                    file.warnings(),
                    source));
  }

  /**
   * Applies an import read from fleet.control-facts (a replica following it, a rebuild) in the
   * caller's transaction, unless it was applied before.
   */
  public Uni<Void> apply(SqlClient tx, Envelope<ControlFact> fact, MigConfigsImported imported) {
    return lock(tx)
        .chain(
            () ->
                AppliedFacts.once(
                    tx,
                    fact.id(),
                    () ->
                        store(
                                tx,
                                List.copyOf(
                                    importer.importFile(imported.yaml()).configs().values()),
                                imported)
                            .replaceWithVoid()));
  }

  /** Up to {@code limit} configs stored before imports were facts (V34), each as its import. */
  public static Uni<List<FactBackfill>> toBackfill(SqlClient conn, int limit) {
    return FactBackfill.listed(
        conn,
        "mig_configs",
        "t.yaml, t.source, t.imported_at",
        "t.name",
        "t.imported_at, t.name",
        limit,
        row -> MigConfigsImported.SUBJECT,
        row ->
            new MigConfigsImported(
                row.getString("yaml"),
                row.getString("source"),
                row.getOffsetDateTime("imported_at").toInstant()));
  }

  private static Uni<Void> lock(SqlClient tx) {
    return tx.query("SELECT pg_advisory_xact_lock(hashtextextended('mig-configs', 0))")
        .execute()
        .replaceWithVoid();
  }

  /** Upserts the import's configs; the names that replaced a stored config. */
  private Uni<List<String>> store(
      SqlClient tx, List<MigConfig> configs, MigConfigsImported imported) {
    return Multi.createFrom()
        .iterable(configs)
        .onItem()
        .transformToUniAndConcatenate(
            config ->
                tx.preparedQuery(
                        "INSERT INTO mig_configs (name, yaml, definition, source,"
                            + " imported_at) VALUES ($1, $2, $3::text::jsonb, $4, $5)"
                            + " ON CONFLICT (name) DO UPDATE SET yaml = EXCLUDED.yaml,"
                            + " definition = EXCLUDED.definition,"
                            + " source = EXCLUDED.source,"
                            + " imported_at = EXCLUDED.imported_at"
                            + " RETURNING (xmax <> 0) AS replaced")
                    .execute(
                        Tuple.of(
                            config.name(),
                            MigConfigWriter.write(List.of(config)),
                            definition(config),
                            imported.source(),
                            imported.importedAt().atOffset(ZoneOffset.UTC)))
                    .map(
                        rows ->
                            rows.iterator().next().getBoolean("replaced") ? config.name() : null))
        .collect()
        .asList()
        .map(replaced -> replaced.stream().filter(n -> n != null).toList());
  }

  /** Stores the file's configs only when the store holds none (the start-up seed). */
  public Uni<Optional<MigConfigImport>> seedIfEmpty(String yaml, String source) {
    return pool.query("SELECT EXISTS (SELECT 1 FROM mig_configs) AS any")
        .execute()
        .chain(
            rows ->
                rows.iterator().next().getBoolean("any")
                    ? Uni.createFrom().item(Optional.<MigConfigImport>empty())
                    : importFile(yaml, source).map(Optional::of));
  }

  public Uni<List<StoredMigConfig>> list() {
    return pool.query("SELECT " + COLUMNS + " FROM mig_configs ORDER BY name")
        .execute()
        .map(
            rows -> {
              List<StoredMigConfig> out = new ArrayList<>();
              rows.forEach(row -> out.add(stored(row)));
              return out;
            });
  }

  public Uni<Optional<StoredMigConfig>> find(String name) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM mig_configs WHERE name = $1")
        .execute(Tuple.of(name))
        .map(
            rows ->
                rows.rowCount() == 0
                    ? Optional.empty()
                    : Optional.of(stored(rows.iterator().next())));
  }

  /**
   * Every stored config, parsed back into the registry the planner names configs from. Each row's
   * YAML is imported again, so a config reads back exactly as it was checked.
   */
  public Uni<MigConfigRegistry> registry() {
    return pool.query("SELECT name, yaml FROM mig_configs ORDER BY name")
        .execute()
        .map(
            rows -> {
              Map<String, MigConfig> configs = new LinkedHashMap<>();
              for (Row row : rows) {
                importer
                    .importFile(row.getString("yaml"))
                    .configs()
                    .values()
                    .forEach(config -> configs.put(config.name(), config));
              }
              return new MigConfigRegistry(configs);
            });
  }

  private String definition(MigConfig config) {
    try {
      return json.writeValueAsString(config.entries().stream().map(MigEntryView::of).toList());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("MIG config " + config.name() + " cannot be written", e);
    }
  }

  private StoredMigConfig stored(Row row) {
    String text = row.getString("definition");
    try {
      return new StoredMigConfig(
          row.getString("name"),
          row.getString("yaml"),
          json.readValue(text, ENTRIES),
          row.getString("source"),
          row.getOffsetDateTime("imported_at").toInstant());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "stored MIG config " + row.getString("name") + " has an unreadable definition", e);
    }
  }
}
