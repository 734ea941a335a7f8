package dev.lacuna.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md's rules, checked on the main classes of every engine module: no package cycles, modules
 * and layers depending one way, and API packages that expose and use no internals. The two facades —
 * {@code Database} over the item engine and {@code KvStore} over the LSM — are the API's only doors into its
 * implementation; their edges are the one exception to the cycle and API rules, and are named here.
 */
@AnalyzeClasses(packages = "dev.lacuna", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    /** What a user may see: exported by the modules (module-info.java) and documented. */
    static final List<String> API = List.of("dev.lacuna", "dev.lacuna.kv", "dev.lacuna.index", "dev.lacuna.storage",
            "dev.lacuna.vfs", "dev.lacuna.vfs.testing");
    /** The foundation any package may use: it depends on nothing of Lacuna's. */
    static final String BASE = "dev.lacuna.base";

    @ArchTest
    static final ArchRule noPackageCycles = noCycles();

    @ArchTest
    static final ArchRule walModuleKnowsNothingAbove = classes().that()
            .resideInAnyPackage("dev.lacuna.storage", "dev.lacuna.vfs", "dev.lacuna.vfs.testing", "dev.lacuna.wal")
            .should().onlyDependOnClassesThat(describe("in engine-wal or the JDK",
                    c -> !c.getPackageName().startsWith("dev.lacuna") || inAny(c, "dev.lacuna.storage",
                            "dev.lacuna.vfs", "dev.lacuna.vfs.testing", "dev.lacuna.wal")));

    /** The crash-testing kit is main code: it must not need a test library (JUnit, AssertJ) to run. */
    @ArchTest
    static final ArchRule crashKitNeedsNoTestLibrary = classes().that().resideInAPackage("dev.lacuna.vfs.testing")
            .should().onlyDependOnClassesThat(describe("not of a test library",
                    c -> !c.getPackageName().startsWith("org.junit") && !c.getPackageName().startsWith("org.assertj")
                            && !c.getPackageName().startsWith("org.opentest4j")));

    @ArchTest
    static final ArchRule coreKnowsNoIndexKind = classes().that().resideOutsideOfPackage("dev.lacuna.secondary..")
            .should().onlyDependOnClassesThat(describe("outside dev.lacuna.secondary",
                    c -> !c.getPackageName().startsWith("dev.lacuna.secondary")));

    @ArchTest
    static final ArchRule baseDependsOnNothing = classes().that().resideInAPackage(BASE)
            .should().onlyDependOnClassesThat(describe("in base or the JDK",
                    c -> !c.getPackageName().startsWith("dev.lacuna") || c.getPackageName().equals(BASE)));

    @ArchTest
    static final ArchRule storageLayersKnowNoItems = classes().that()
            .resideInAnyPackage("dev.lacuna.lsm", "dev.lacuna.sstable", "dev.lacuna.manifest", "dev.lacuna.base")
            .should().onlyDependOnClassesThat(describe("not in the item layers",
                    c -> !inAny(c, "dev.lacuna", "dev.lacuna.engine", "dev.lacuna.expr", "dev.lacuna.item",
                            "dev.lacuna.index", "dev.lacuna.secondary")));

    @ArchTest
    static final ArchRule sstablesDoNotKnowTheTree = classes().that().resideInAPackage("dev.lacuna.sstable")
            .should().onlyDependOnClassesThat(describe("not in lsm", c -> !inAny(c, "dev.lacuna.lsm")));

    @ArchTest
    static final ArchRule apiUsesNoInternals = classes().that(describe("in an API package",
                    c -> inAny(c, API.toArray(String[]::new))))
            .should(new ArchCondition<>("depend only on API packages, the base and the JDK (facades aside)") {
                @Override
                public void check(JavaClass c, ConditionEvents events) {
                    for (Dependency d : c.getDirectDependenciesFromSelf()) {
                        JavaClass target = d.getTargetClass();
                        if (facadeEdge(d) || !target.getPackageName().startsWith("dev.lacuna") || isApiOrBase(target)) {
                            continue;
                        }
                        events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                    }
                }
            });

    @ArchTest
    static final ArchRule apiSignaturesShowOnlyApiTypes = methods().that().arePublic()
            .and().areDeclaredInClassesThat(describe("public API classes",
                    c -> c.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC)
                            && inAny(c, API.toArray(String[]::new))))
            .should(new ArchCondition<>("mention only API types and JDK types in their signatures") {
                @Override
                public void check(JavaMethod m, ConditionEvents events) {
                    Set<JavaClass> involved = new java.util.HashSet<>(m.getReturnType().getAllInvolvedRawTypes());
                    m.getParameterTypes().forEach(t -> involved.addAll(t.getAllInvolvedRawTypes()));
                    for (JavaClass t : involved) {
                        if (t.getPackageName().startsWith("dev.lacuna") && !inAny(t, API.toArray(String[]::new))) {
                            events.add(SimpleConditionEvent.violated(m, m.getFullName() + " shows " + t.getName()));
                        }
                    }
                }
            });

    /** The cycle rule is not vacuous: on two packages that import each other, it fails. */
    @Test
    void shouldFailTheCycleRuleOnAPackageCycle() {
        JavaClasses cyclic = new ClassFileImporter().importPackages("dev.lacuna.architecture.cycle");
        assertThatThrownBy(() -> noCycles().check(cyclic)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("dev.lacuna.architecture.cycle.a").hasMessageContaining("Cycle detected");
    }

    /** Packages of dev.lacuna as slices, free of cycles once the facades' edges are set aside. */
    static ArchRule noCycles() {
        return slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                return c.getPackageName().startsWith("dev.lacuna") ? SliceIdentifier.of(c.getPackageName())
                        : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "packages of dev.lacuna";
            }
        }).should().beFreeOfCycles()
                .ignoreDependency(describe("a facade", (JavaClass c) -> FACADES.contains(c.getName())),
                        describe("its implementation", (JavaClass c) -> inAny(c, "dev.lacuna.engine", "dev.lacuna.lsm")));
    }

    /** The API's doors into the implementation: each constructs what it delegates to. */
    static final Set<String> FACADES = Set.of("dev.lacuna.Database", "dev.lacuna.kv.KvStore");

    private static boolean facadeEdge(Dependency d) {
        return FACADES.contains(d.getOriginClass().getName())
                && inAny(d.getTargetClass(), "dev.lacuna.engine", "dev.lacuna.lsm");
    }

    private static boolean isApiOrBase(JavaClass c) {
        return inAny(c, API.toArray(String[]::new)) || c.getPackageName().equals(BASE);
    }

    private static boolean inAny(JavaClass c, String... packages) {
        for (String p : packages) {
            if (c.getPackageName().equals(p)) {
                return true;
            }
        }
        return false;
    }
}
