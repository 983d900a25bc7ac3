; ModuleID = '__compute_module___compute_module_wrapped_convert.3'
source_filename = "__compute_module___compute_module_wrapped_convert.3"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define noalias noundef ptr @wrapped_convert.3(ptr nofree readonly captures(none) %0) local_unnamed_addr {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !8
  %4 = load ptr, ptr %3, align 8, !invariant.load !8
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !8
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !8
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %.lr.ph.preheader

.lr.ph.preheader:                                 ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 20
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 1048576)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 2097152)
  %14 = or disjoint i64 %12, 1048575
  br label %.lr.ph

.lr.ph:                                           ; preds = %.lr.ph.preheader, %.lr.ph
  %15 = phi i64 [ %71, %.lr.ph ], [ %13, %.lr.ph.preheader ]
  %savedstack = tail call ptr @llvm.stacksave.p0()
  %16 = lshr i64 %15, 8
  %17 = shl nuw nsw i64 %15, 5
  %18 = and i64 %17, 8160
  %.idx3 = shl nuw nsw i64 %16, 15
  %19 = getelementptr i8, ptr %4, i64 %.idx3
  %20 = getelementptr [4 x i8], ptr %19, i64 %18
  %.sroa.0.0.copyload = load <8 x float>, ptr %20, align 1
  %.sroa.4.0..sroa_idx = getelementptr inbounds nuw i8, ptr %20, i64 32
  %.sroa.4.0.copyload = load <8 x float>, ptr %.sroa.4.0..sroa_idx, align 1
  %.sroa.5.0..sroa_idx = getelementptr inbounds nuw i8, ptr %20, i64 64
  %.sroa.5.0.copyload = load <8 x float>, ptr %.sroa.5.0..sroa_idx, align 1
  %.sroa.6.0..sroa_idx = getelementptr inbounds nuw i8, ptr %20, i64 96
  %.sroa.6.0.copyload = load <8 x float>, ptr %.sroa.6.0..sroa_idx, align 1
  %21 = alloca [32 x bfloat], align 64
  %22 = bitcast <8 x float> %.sroa.0.0.copyload to <8 x i32>
  %23 = lshr <8 x i32> %22, splat (i32 16)
  %24 = and <8 x i32> %23, splat (i32 1)
  %25 = add nuw nsw <8 x i32> %24, splat (i32 32767)
  %26 = fcmp uno <8 x float> %.sroa.0.0.copyload, zeroinitializer
  %27 = and <8 x i32> %22, splat (i32 -8388608)
  %28 = or disjoint <8 x i32> %27, splat (i32 4194304)
  %29 = add <8 x i32> %25, %22
  %30 = select <8 x i1> %26, <8 x i32> %28, <8 x i32> %29
  %31 = lshr <8 x i32> %30, splat (i32 16)
  %32 = trunc nuw <8 x i32> %31 to <8 x i16>
  store <8 x i16> %32, ptr %21, align 64
  %33 = bitcast <8 x float> %.sroa.4.0.copyload to <8 x i32>
  %34 = lshr <8 x i32> %33, splat (i32 16)
  %35 = and <8 x i32> %34, splat (i32 1)
  %36 = add nuw nsw <8 x i32> %35, splat (i32 32767)
  %37 = fcmp uno <8 x float> %.sroa.4.0.copyload, zeroinitializer
  %38 = and <8 x i32> %33, splat (i32 -8388608)
  %39 = or disjoint <8 x i32> %38, splat (i32 4194304)
  %40 = add <8 x i32> %36, %33
  %41 = select <8 x i1> %37, <8 x i32> %39, <8 x i32> %40
  %42 = lshr <8 x i32> %41, splat (i32 16)
  %43 = trunc nuw <8 x i32> %42 to <8 x i16>
  %44 = getelementptr inbounds nuw i8, ptr %21, i64 16
  store <8 x i16> %43, ptr %44, align 16
  %45 = bitcast <8 x float> %.sroa.5.0.copyload to <8 x i32>
  %46 = lshr <8 x i32> %45, splat (i32 16)
  %47 = and <8 x i32> %46, splat (i32 1)
  %48 = add nuw nsw <8 x i32> %47, splat (i32 32767)
  %49 = fcmp uno <8 x float> %.sroa.5.0.copyload, zeroinitializer
  %50 = and <8 x i32> %45, splat (i32 -8388608)
  %51 = or disjoint <8 x i32> %50, splat (i32 4194304)
  %52 = add <8 x i32> %48, %45
  %53 = select <8 x i1> %49, <8 x i32> %51, <8 x i32> %52
  %54 = lshr <8 x i32> %53, splat (i32 16)
  %55 = trunc nuw <8 x i32> %54 to <8 x i16>
  %56 = getelementptr inbounds nuw i8, ptr %21, i64 32
  store <8 x i16> %55, ptr %56, align 32
  %57 = bitcast <8 x float> %.sroa.6.0.copyload to <8 x i32>
  %58 = lshr <8 x i32> %57, splat (i32 16)
  %59 = and <8 x i32> %58, splat (i32 1)
  %60 = add nuw nsw <8 x i32> %59, splat (i32 32767)
  %61 = fcmp uno <8 x float> %.sroa.6.0.copyload, zeroinitializer
  %62 = and <8 x i32> %57, splat (i32 -8388608)
  %63 = or disjoint <8 x i32> %62, splat (i32 4194304)
  %64 = add <8 x i32> %60, %57
  %65 = select <8 x i1> %61, <8 x i32> %63, <8 x i32> %64
  %66 = lshr <8 x i32> %65, splat (i32 16)
  %67 = trunc nuw <8 x i32> %66 to <8 x i16>
  %68 = getelementptr inbounds nuw i8, ptr %21, i64 48
  store <8 x i16> %67, ptr %68, align 16
  %.idx7 = shl nuw nsw i64 %16, 14
  %69 = getelementptr i8, ptr %6, i64 %.idx7
  %70 = getelementptr [2 x i8], ptr %69, i64 %18
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %70, ptr noundef nonnull align 64 dereferenceable(64) %21, i64 64, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack)
  %71 = add nuw nsw i64 %15, 1
  %exitcond.not = icmp eq i64 %15, %14
  br i1 %exitcond.not, label %._crit_edge, label %.lr.ph

._crit_edge:                                      ; preds = %.lr.ph, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #0

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare ptr @llvm.stacksave.p0() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare void @llvm.stackrestore.p0(ptr) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #3

attributes #0 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn }
attributes #3 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}
!xla_cpu_memory_region_name = !{!6}
!llvm.ident = !{!7}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 6}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 0}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!7 = !{!"clang version 18.1.8"}
!8 = !{}
